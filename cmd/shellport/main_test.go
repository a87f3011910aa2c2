package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/testkit/lifecycle"
	"github.com/shellport/shellport/internal/testkit/livecheck"
	"github.com/shellport/shellport/internal/testkit/transcript"
)

// TestMain points SHELLPORT_SPAWN_HELPER at a helper built from this tree:
// the test binary has none beside it, and on Linux the runtime needs one.
// Run as "shellport" (by a testscript, see TestScripts) the test binary is
// the executable.
func TestMain(m *testing.M) {
	testscript.Main(setup{m}, map[string]func(){"shellport": main})
}

type setup struct{ m *testing.M }

func (s setup) Run() int {
	if os.Getenv(spawnhelper.EnvVar) == "" {
		path, err := testkit.BuildSpawnHelper()
		if err != nil {
			fmt.Fprintln(os.Stderr, "build the spawn helper:", err)
			return 2
		}
		_ = os.Setenv(spawnhelper.EnvVar, path)
	}
	code := s.m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	return code
}

var built struct {
	once sync.Once
	dir  string
	err  error
}

// buildExecutable builds the shellport executable, once per test binary,
// into a directory with the spawn helper beside it, where a release puts
// it.
func buildExecutable(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "shellport-exe-")
		if built.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(built.dir, "shellport"), ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		helper, err := testkit.BuildSpawnHelper()
		if err == nil {
			var b []byte
			if b, err = os.ReadFile(helper); err == nil {
				err = os.WriteFile(filepath.Join(built.dir, spawnhelper.Name), b, 0o755)
			}
		}
		built.err = err
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, "shellport")
}

// servePipes runs `shellport serve` in-process on pipes: the same code path as
// the executable, minus the exec.
type servePipes struct {
	in    *io.PipeWriter
	lines chan []byte
	exit  chan int
}

func startServe(t *testing.T, args ...string) *servePipes {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &servePipes{in: inW, lines: make(chan []byte, 1024), exit: make(chan int, 1)}
	var stderr bytes.Buffer
	go func() {
		code := run(append([]string{"serve"}, args...), inR, outW, &stderr)
		_ = outW.Close()
		s.exit <- code
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			s.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case <-s.exit:
		case <-time.After(10 * time.Second):
			t.Error("serve did not exit at end of input")
		}
	})
	return s
}

func (s *servePipes) Send(msg []byte) error {
	_, err := s.in.Write(append(append([]byte(nil), msg...), '\n'))
	return err
}

func (s *servePipes) Recv(timeout time.Duration) ([]byte, error) {
	select {
	case line, ok := <-s.lines:
		if !ok {
			return nil, io.EOF
		}
		return line, nil
	case <-time.After(timeout):
		return nil, nil
	}
}

func TestServeTranscripts(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/rpc/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			steps, err := transcript.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := transcript.Run(startServe(t), steps, 20*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestServeTooLargeMessageKeepsServing(t *testing.T) {
	s := startServe(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 10<<20) + `"}}`
	steps := []transcript.Step{
		{Line: 1, Send: []byte(big)},
		{Line: 2, Expect: []byte(fmt.Sprintf(`{"id":1,"error":{"code":-32004,"message":"message too large: %d bytes (the limit is %d)"}}`, len(big), rpc.DefaultMaxMessage))},
		{Line: 3, Send: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)},
		{Line: 4, Expect: []byte(`{"id":2,"result":{"tools":"<any>"}}`)},
	}
	if err := transcript.Run(s, steps, 20*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestServeExitNotification(t *testing.T) {
	s := startServe(t)
	_ = s.Send([]byte(`{"jsonrpc":"2.0","method":"exit"}`))
	select {
	case code := <-s.exit:
		s.exit <- code // for the cleanup, which waits for the exit too
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not exit after the exit notification")
	}
}

func TestServeRefusesOtherVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"serve", "--expect-version", "9.9.9"}, strings.NewReader(""), &out, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), `"9.9.9"`) || !strings.Contains(errOut.String(), core.Version) {
		t.Fatalf("code %d, stderr %q", code, errOut.String())
	}
	if out.Len() != 0 {
		t.Fatalf("stdout must carry protocol only, got %q", out.String())
	}
}

func TestServeBadConfigStillAnswers(t *testing.T) {
	s := startServe(t, "--config", `{"profile":"nope"}`)
	steps := []transcript.Step{
		{Line: 1, Send: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)},
		{Line: 2, Expect: []byte(`{"id":1,"error":{"code":-32005,"message":"re:unknown profile \"nope\""}}`)},
	}
	if err := transcript.Run(s, steps, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestVersionAndUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, nil, &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != core.Version {
		t.Fatalf("version: %d %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"frobnicate"}, nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown command "frobnicate"`) {
		t.Fatalf("unknown command: %d %q", code, errOut.String())
	}
}

func TestCallCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"call", "--config", `{"testTools":true}`, "--cwd", "/", "_echo", `{"hello":"world"}`}, nil, &out, &errOut)
	if code != 0 || strings.TrimSpace(out.String()) != `{"hello":"world"}` {
		t.Fatalf("call: %d %q %q", code, out.String(), errOut.String())
	}
	out.Reset()
	code = run([]string{"call", "--config", `{"testTools":true}`, "_sleep", `{"ms":"x"}`}, nil, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "must be a number") {
		t.Fatalf("an isError result exits 1: %d %q", code, out.String())
	}
	errOut.Reset()
	if code := run([]string{"call", "_echo", "{not json"}, nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "not valid JSON") {
		t.Fatalf("bad json: %d %q", code, errOut.String())
	}
}

// TestServeKillsEverythingAtEndOfInput starts a background job in a
// persistent shell and a one-shot background task, then closes stdin: serve
// must exit and leave neither process alive.
func TestServeKillsEverythingAtEndOfInput(t *testing.T) {
	for _, profile := range []string{"persistent", "oneshot"} {
		t.Run(profile, func(t *testing.T) {
			s := startServe(t, "--config", fmt.Sprintf(`{"profile":%q}`, profile))
			args := `{"command":"sleep 1000 & echo PID=$!"}`
			if profile == "oneshot" {
				args = `{"command":"echo PID=$$; exec sleep 1000","description":"sleep in the background","run_in_background":true}`
			}
			steps := []transcript.Step{
				{Line: 1, Send: []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","id":"k"}}`)},
				{Line: 2, Expect: []byte(`{"id":1,"result":{"session":"k"}}`)},
			}
			if err := transcript.Run(s, steps, 20*time.Second); err != nil {
				t.Fatal(err)
			}
			// Sent after the transcript: its reply is read by awaitPID.
			if err := s.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"session":"k","name":"bash","arguments":` + args + `}}`)); err != nil {
				t.Fatal(err)
			}
			pid := awaitPID(t, s, profile)
			if !alive(pid) {
				t.Fatalf("pid %d is not running before the end of input", pid)
			}
			_ = s.in.Close()
			select {
			case code := <-s.exit:
				s.exit <- code
			case <-time.After(15 * time.Second):
				t.Fatal("serve did not exit at end of input")
			}
			if alive(pid) {
				t.Fatalf("pid %d outlived serve", pid)
			}
		})
	}
}

// awaitPID reads the PID=N line the command printed: from the reply in the
// persistent profile, from the task's output in the one-shot one.
func awaitPID(t *testing.T, s *servePipes, profile string) int {
	t.Helper()
	re := regexp.MustCompile(`PID=(\d+)`)
	for attempt := 0; attempt < 50; attempt++ {
		if profile == "oneshot" && attempt > 0 {
			_ = s.Send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"k","name":"bash_output","arguments":{"task_id":"bash-1"}}}`, 100+attempt)))
		}
		msg, err := s.Recv(10 * time.Second)
		if err != nil || msg == nil {
			t.Fatalf("no reply: %v", err)
		}
		if m := re.FindSubmatch(msg); m != nil {
			pid, _ := strconv.Atoi(string(m[1]))
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the command never printed its pid")
	return 0
}

// alive reports whether pid runs (a zombie counts as dead).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// TestServePipedScriptGetsEveryReply pipes a call, a shutdown and the end
// of input at once, the way `shellport serve < requests.jsonl` does: the
// call must still be answered with its result, not cancelled.
func TestServePipedScriptGetsEveryReply(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"config":{"testTools":true}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"_sleep","arguments":{"ms":300}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"_echo","arguments":{}}}`,
	}, "\n") + "\n"
	var out, errOut bytes.Buffer
	if code := run([]string{"serve"}, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	replies := out.String()
	for _, want := range []string{`"id":2,"result":{"content":[{"type":"text","text":"slept"}]`, `"id":3,"result":{}`, `"id":4,"error":{"code":-32003`} {
		if !strings.Contains(replies, want) {
			t.Errorf("missing %s in:\n%s", want, replies)
		}
	}
}

// TestServeSessionLifecycle runs the issue-10 session-lifetime scenarios
// through `shellport serve`.
func TestServeSessionLifecycle(t *testing.T) {
	lifecycle.RunAll(t, func(t *testing.T) transcript.Carrier { return startServe(t) })
}

// TestServeLiveOutput runs the issue-17 live-output scenarios through
// `shellport serve`, in both bash profiles.
func TestServeLiveOutput(t *testing.T) {
	livecheck.RunAll(t, func(t *testing.T) transcript.Carrier { return startServe(t) })
}
