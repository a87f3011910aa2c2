package persistent

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
)

// testWait bounds waits in these tests. It guards against deadlock and is
// never a speed assertion.
const testWait = 30 * time.Second

type fixture struct {
	t     *testing.T
	tool  *Tool
	cwd   string
	spill string
}

// newFixture returns a tool with cfg over test defaults, a session cwd and
// a spill directory, all cleaned up at the end.
func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("persistent bash needs a terminal; not on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash in PATH")
	}
	f := &fixture{t: t, cwd: t.TempDir(), spill: t.TempDir()}
	if cfg.TimeoutMs == 0 {
		cfg.TimeoutMs = int(testWait / time.Millisecond)
	}
	if cfg.SpawnHelper == "" {
		cfg.SpawnHelper = spawnHelper(t)
	}
	f.tool = New(tools.Host{SpillDir: f.spill}, cfg).(*Tool)
	t.Cleanup(func() { _ = f.tool.Close() })
	return f
}

func args(command string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": command})
	return b
}

// splitCalls makes the tests' calls start split in two (StartCall) where
// they can, as the runtime starts them; -split=false runs them all through
// Call. Either way a session's first call goes through Call (no shell yet).
var splitCalls = flag.Bool("split", true, "start calls with StartCall where it can, as the runtime does")

func (f *fixture) callIn(ctx context.Context, session, command string) (*tools.Result, error) {
	call := &tools.Call{
		ID:        "call-" + session,
		Session:   tools.Session{ID: session, Key: session, Cwd: f.cwd},
		Arguments: args(command),
	}
	if *splitCalls {
		type ended struct {
			res *tools.Result
			err error
		}
		ch := make(chan ended, 1)
		// The result is made where the runtime makes it: on the goroutine
		// that resumes the call (the terminal reader, at a clean end).
		if f.tool.StartCall(ctx, call, func(finish func() (*tools.Result, error)) {
			res, err := finish()
			ch <- ended{res, err}
		}) {
			e := <-ch
			return e.res, e.err
		}
	}
	return f.tool.Call(ctx, call)
}

// run runs command in session "s" and fails the test on a Go error.
func (f *fixture) run(command string) *tools.Result {
	f.t.Helper()
	return f.runIn("s", command)
}

func (f *fixture) runIn(session, command string) *tools.Result {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testWait)
	defer cancel()
	res, err := f.callIn(ctx, session, command)
	if err != nil {
		f.t.Fatalf("Call(%q): %v", command, err)
	}
	if res.IsError {
		f.t.Fatalf("Call(%q): error result %q", command, res.Text)
	}
	return res
}

// expect runs command and requires its text to be exactly want.
func (f *fixture) expect(command, want string) *tools.Result {
	f.t.Helper()
	res := f.run(command)
	if res.Text != want {
		f.t.Fatalf("Call(%q):\n got %q\nwant %q", command, res.Text, want)
	}
	return res
}

// shellOf returns the live shell of a session, or nil.
func (f *fixture) shellOf(session string) *shell {
	f.tool.mu.Lock()
	s := f.tool.sessions[session]
	f.tool.mu.Unlock()
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sh
}

func structured(t *testing.T, res *tools.Result, key string) any {
	t.Helper()
	v, ok := res.Structured[key]
	if !ok {
		t.Fatalf("structured result has no %q: %v", key, res.Structured)
	}
	return v
}

// sessionProcs lists live processes whose session id is sid (Linux).
func sessionProcs(t *testing.T, sid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 3 && f[0] != "Z" && f[3] == strconv.Itoa(sid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// spawnHelper builds cmd/shellport-spawn-helper once per test binary.
func spawnHelper(t *testing.T) string {
	t.Helper()
	return testkit.SpawnHelper(t)
}

func (f *fixture) sessionOf(id string) *session {
	f.tool.mu.Lock()
	defer f.tool.mu.Unlock()
	return f.tool.sessions[id]
}

// writeFIFO writes to a FIFO a command reads; opening blocks until the
// command opens its end.
func (f *fixture) writeFIFO(path, text string) {
	f.t.Helper()
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString(text); err != nil {
		f.t.Fatal(err)
	}
}

// eventually polls cond until it holds, for states reached asynchronously.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %v", what, testWait)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func eventuallyFile(t *testing.T, path string) {
	t.Helper()
	eventually(t, path+" exists", func() bool { _, err := os.Stat(path); return err == nil })
}

// Paths of the driver loop (see bootScript).
const (
	turnPath   = "turn"   // the turn builtin (Linux: the test helper has it beside it)
	scriptPath = "script" // shell commands, bash 4.1 and later
	legacyPath = "legacy" // shell commands, bash before 4.1
)

// loopPaths are the paths a shell here can take: the turn builtin only on
// Linux, where it is built.
func loopPaths() []string {
	if runtime.GOOS == "linux" {
		return []string{turnPath, scriptPath, legacyPath}
	}
	return []string{scriptPath, legacyPath}
}

// onEveryLoopPath runs run once for each path of the driver loop that
// shells here can take. Shells started during a run take its path.
func onEveryLoopPath(t *testing.T, run func(path string)) {
	t.Helper()
	t.Cleanup(func() { testOnlyLegacyLoop, testOnlyScriptLoop = false, false })
	for _, path := range loopPaths() {
		testOnlyLegacyLoop, testOnlyScriptLoop = path == legacyPath, path == scriptPath
		run(path)
	}
}

// onTurnPath says whether f's shell runs the loop with the turn builtin,
// asking the shell.
func (f *fixture) onTurnPath() bool {
	f.t.Helper()
	return f.run("type -t __sp_turn").Text == "builtin\n"
}
