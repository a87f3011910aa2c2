package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/testkit/rpcclient"
	"github.com/shellport/shellport/internal/testkit/transcript"
)

// proc is `shellport serve` as a child process.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	exited chan struct{}
}

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(buildExecutable(t), append([]string{"serve"}, args...)...)
	p := &proc{cmd: cmd, lines: make(chan []byte, 1024), stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(p.lines)
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	return p
}

func (p *proc) Send(msg []byte) error {
	_, err := p.stdin.Write(append(append([]byte(nil), msg...), '\n'))
	return err
}

func (p *proc) Recv(timeout time.Duration) ([]byte, error) {
	select {
	case line, ok := <-p.lines:
		if !ok {
			return nil, io.EOF
		}
		return line, nil
	case <-time.After(timeout):
		return nil, nil
	}
}

// wait waits (bounded, as a hang guard) for the process to exit and returns
// its exit code.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(rpcclient.Wait):
		t.Fatal("shellport serve did not exit")
	}
	return p.cmd.ProcessState.ExitCode()
}

// Issue 18: SIGTERM, SIGINT and SIGHUP end serve at once, after it killed
// every process it started, and it says so in its log.
func TestServeExitsOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startProc(t, "--config", `{"profile":"persistent"}`)
			c := rpcclient.New(t, p)
			token := rpcclient.Token()
			c.Call("session/new", map[string]any{"cwd": "/", "id": "s", "env": map[string]string{"SP_TOKEN": token}})
			c.Call("tools/call", map[string]any{"session": "s", "name": "bash", "arguments": map[string]any{"command": "sleep 1000 &"}}).Text(t)
			if n := rpcclient.CountProcs(t, token); n == 0 {
				t.Fatal("the session's processes are not running before the signal")
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != 0 {
				t.Fatalf("exit code %d after %v; stderr:\n%s", code, sig, p.stderr)
			}
			if want := sig.String() + ": shutting down"; !strings.Contains(p.stderr.String(), want) {
				t.Fatalf("stderr does not say %q:\n%s", want, p.stderr)
			}
			if n := rpcclient.CountProcs(t, token); n != 0 {
				t.Fatalf("%d processes outlived serve after %v", n, sig)
			}
		})
	}
}

// Issue 18: a signal while serve drains (end of input with a call still
// running) cuts the drain short: the call is answered as cancelled, not
// lost, and serve exits 0.
func TestServeSignalWhileDraining(t *testing.T) {
	p := startProc(t, "--config", `{"testTools":true}`)
	c := rpcclient.New(t, p)
	sleeper := c.Send("tools/call", map[string]any{"name": "_sleep", "arguments": map[string]any{"ms": 600000}})
	c.Call("tools/list", map[string]any{}) // the sleeper has been admitted
	_ = p.stdin.Close()                    // end of input: serve drains
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if r := c.Wait(sleeper); r.Code() != rpc.CodeRequestCancelled {
		t.Fatalf("the running call: want cancelled, got %d %q", r.Code(), r.Message())
	}
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr)
	}
}

// Issue 18: --log sends diagnostics to the file; stderr and stdout stay
// clean.
func TestServeLogFlag(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "serve.log")
	p := startProc(t, "--log", logPath, "--config", `{"profile":"nope"}`)
	steps := []transcript.Step{
		{Line: 1, Send: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)},
		{Line: 2, Expect: []byte(`{"id":1,"error":{"code":-32005,"message":"re:unknown profile \"nope\""}}`)},
	}
	if err := transcript.Run(p, steps, rpcclient.Wait); err != nil {
		t.Fatal(err)
	}
	_ = p.stdin.Close()
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	data, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(data), `shellport serve: invalid config: unknown profile "nope"`) {
		t.Fatalf("log file: %q %v", data, err)
	}
	if p.stderr.Len() != 0 {
		t.Fatalf("with --log, stderr must stay empty: %q", p.stderr)
	}
	// A log that cannot be opened is an error at start.
	var out, errOut bytes.Buffer
	if code := run([]string{"serve", "--log", t.TempDir()}, strings.NewReader(""), &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "shellport serve: open log: ") || out.Len() != 0 {
		t.Fatalf("unopenable log: code %d, stderr %q, stdout %q", code, errOut.String(), out.String())
	}
}

// Issue 18: flag errors exit 2 with the usage on stderr and nothing on
// stdout, which carries protocol messages only.
func TestServeFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--bogus"}, `unknown flag "--bogus"`},
		{[]string{"serve", "--config"}, "flag --config needs a value"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--json"}, `unknown flag "--json"`},
	} {
		var out, errOut bytes.Buffer
		code := run(c.args, strings.NewReader(""), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), c.want) || out.Len() != 0 {
			t.Errorf("%v: code %d, stderr %q, stdout %q", c.args, code, errOut.String(), out.String())
		}
	}
}

// Issue 18: serve honours maxMessageBytes given in initialize, as the
// library transport does: raised above the default, a 10 MiB call goes
// through; lowered, the reader itself refuses a larger message.
func TestServeHonoursMaxMessageBytesFromInitialize(t *testing.T) {
	s := startServe(t)
	c := rpcclient.New(t, s)
	if r := c.Call("initialize", map[string]any{"config": map[string]any{"testTools": true, "maxMessageBytes": 16 << 20}}); r.Error != nil {
		t.Fatal(r.Message())
	}
	big := strings.Repeat("x", 10<<20)
	got := c.Call("tools/call", map[string]any{"name": "_echo", "arguments": map[string]any{"s": big}}).Text(t)
	if len(got) < 10<<20 {
		t.Fatalf("the 10 MiB call was not echoed whole: %d bytes", len(got))
	}

	s2 := startServe(t)
	c2 := rpcclient.New(t, s2)
	c2.Call("initialize", map[string]any{"config": map[string]any{"testTools": true, "maxMessageBytes": 1000}})
	r := c2.Call("tools/call", map[string]any{"name": "_echo", "arguments": map[string]any{"s": strings.Repeat("y", 2000)}})
	if r.Code() != rpc.CodeMessageTooLarge || !strings.Contains(r.Message(), "(the limit is 1000)") {
		t.Fatalf("want message too large against the client's limit, got %d %q", r.Code(), r.Message())
	}
}

// Issue 10: every `shellport call` left an empty spill directory in TMPDIR.
// A spill file that the output names is kept.
func TestCallLeavesNoEmptySpillDirectory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out, errOut bytes.Buffer
	if code := run([]string{"call", "--cwd", "/", "bash", `{"command":"echo hi","description":"greet"}`}, nil, &out, &errOut); code != 0 {
		t.Fatalf("call: %d %q %q", code, out.String(), errOut.String())
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("call left %v in TMPDIR", entries)
	}
	out.Reset()
	cfg := `{"tools":{"bash":{"maxOutputChars":100}}}`
	if code := run([]string{"call", "--config", cfg, "--cwd", "/", "bash", `{"command":"seq 1 1000","description":"count"}`}, nil, &out, &errOut); code != 0 {
		t.Fatalf("call: %d %q", code, errOut.String())
	}
	spills, _ := filepath.Glob(filepath.Join(tmp, "shellport-spill-*", "*"))
	if len(spills) != 1 || !strings.Contains(out.String(), spills[0]) {
		t.Fatalf("the spill file the output names must be kept: %v\n%s", spills, out.String())
	}
}
