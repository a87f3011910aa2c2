package bash_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// Issue 4: stdout first, then a [stderr] section, then the exit marker; a
// non-zero exit is a normal result.
func TestStdoutStderrAndExitCode(t *testing.T) {
	k := newKit(t, bash.Config{})
	res := run(t, k, session("a", t.TempDir()), "echo out; echo err >&2; echo more; exit 3")
	want := "out\nmore\n[stderr]\nerr\n[exit code: 3]"
	if res.Text != want {
		t.Fatalf("text = %q, want %q", res.Text, want)
	}
	if got := res.Structured["exitCode"]; got != 3 {
		t.Errorf("exitCode = %v, want 3", got)
	}
	if res.Raw != "out\nmore\n[stderr]\nerr\n" {
		t.Errorf("raw = %q", res.Raw)
	}
}

func TestOutputShapes(t *testing.T) {
	k := newKit(t, bash.Config{})
	s := session("a", t.TempDir())
	for _, tc := range []struct{ command, want string }{
		{"echo hi", "hi\n"},
		{"printf 'no newline'", "no newline"},
		{"true", "[no output]"},
		{"false", "[exit code: 1]"},
		{"printf 'x'; exit 2", "x\n[exit code: 2]"},
		{"printf 'e' >&2", "[stderr]\ne"},
		{"printf 'o'; printf 'e' >&2; exit 1", "o\n[stderr]\ne\n[exit code: 1]"},
		{"printf '\\xff\\xfe ok'", "\uFFFD\uFFFD ok\n[2 bytes of the output were not valid UTF-8 and were replaced with U+FFFD]"},
	} {
		if got := run(t, k, s, tc.command).Text; got != tc.want {
			t.Errorf("%s: text = %q, want %q", tc.command, got, tc.want)
		}
	}
}

// Issue 4: nothing persists between calls.
func TestNoStateBetweenCalls(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	s := session("a", dir)
	run(t, k, s, "cd /; export SHELLPORT_FOO=bar; shellport_var=1; f() { echo fn; }")
	res := run(t, k, s, `pwd; echo "${SHELLPORT_FOO:-unset} ${shellport_var:-unset}"; type f >/dev/null 2>&1 || echo nofunc`)
	if want := dir + "\nunset unset\nnofunc\n"; res.Text != want {
		t.Fatalf("text = %q, want %q", res.Text, want)
	}
}

func TestSessionEnvAndStdin(t *testing.T) {
	k := newKit(t, bash.Config{})
	s := tools.Session{ID: "a", Key: "a", Cwd: t.TempDir(), Env: map[string]string{"SHELLPORT_TEST_VAR": "from session"}}
	if got := run(t, k, s, `echo "$SHELLPORT_TEST_VAR"`).Text; got != "from session\n" {
		t.Errorf("env: %q", got)
	}
	// stdin is /dev/null: readers see end-of-file at once instead of hanging.
	if got := run(t, k, s, `cat; read -r x; echo "read=$?"`).Text; got != "read=1\n" {
		t.Errorf("stdin: %q", got)
	}
	// Its own session: no controlling terminal to prompt on.
	if _, err := exec.LookPath("ps"); err == nil {
		if got := run(t, k, s, `[ "$(ps -o sid= -p $$)" -eq $$ ] && echo leader`).Text; got != "leader\n" {
			t.Errorf("session leader: %q", got)
		}
	}
}

// Issue 4: workdir defaults to the session cwd, relative ones join it,
// absolute ones are used as is, missing ones are clear errors.
func TestWorkdir(t *testing.T) {
	k := newKit(t, bash.Config{})
	cwd, other := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := session("a", cwd)
	for _, tc := range []struct{ workdir, want string }{
		{"", cwd},
		{"sub", filepath.Join(cwd, "sub")},
		{"./sub/../sub", filepath.Join(cwd, "sub")},
		{other, other},
	} {
		if got := run(t, k, s, "pwd", "workdir", tc.workdir).Text; got != tc.want+"\n" {
			t.Errorf("workdir %q: pwd = %q, want %q", tc.workdir, got, tc.want)
		}
	}
	for _, tc := range []struct{ workdir, want string }{
		{"missing", `workdir "missing" (` + filepath.Join(cwd, "missing") + `) does not exist`},
		{"/definitely/not/here", `workdir "/definitely/not/here" does not exist`},
		{"file", `workdir "file" (` + filepath.Join(cwd, "file") + `) is not a directory`},
	} {
		res := call(t, k.bash, s, map[string]any{"command": "pwd", "description": "Print the directory", "workdir": tc.workdir})
		if !res.IsError || res.Text != tc.want {
			t.Errorf("workdir %q: %v %q, want error %q", tc.workdir, res.IsError, res.Text, tc.want)
		}
	}
	gone := session("a", filepath.Join(cwd, "gone"))
	res := call(t, k.bash, gone, map[string]any{"command": "pwd", "description": "Print the directory"})
	if !res.IsError || !strings.Contains(res.Text, "the session's working directory") {
		t.Errorf("missing session cwd: %v %q", res.IsError, res.Text)
	}
}

func TestInvalidArguments(t *testing.T) {
	k := newKit(t, bash.Config{MaxTimeoutMs: 1000, TimeoutMs: 500})
	s := session("a", t.TempDir())
	for _, tc := range []struct{ args, want string }{
		{`{"description":"No command at all"}`, `"command" is required`},
		{`{"command":"  ","description":"Blank command"}`, `"command" is required`},
		{`{"command":"ls","description":"List","timeoutMs":0}`, `"timeoutMs" must be a positive number`},
		{`{"command":"ls","description":"List","timeoutMs":5000}`, `the maximum is 1000`},
		{`{"command":"ls","description":"List","timeoutMs":"10"}`, `"timeoutMs" must be a number`},
		{`{"command":"ls","description":"List","restart":true}`, `unknown argument "restart"`},
		{`{"command":"a\u0000b","description":"Nul byte"}`, `NUL`},
		{`[1]`, `expected an object`},
	} {
		res := call(t, k.bash, s, tc.args)
		if !res.IsError || !strings.Contains(res.Text, tc.want) {
			t.Errorf("%s: %v %q, want error containing %q", tc.args, res.IsError, res.Text, tc.want)
		}
	}
	// The description has no effect on execution, so a call without one runs.
	if res := call(t, k.bash, s, `{"command":"echo ok"}`); res.IsError || res.Text != "ok\n" {
		t.Errorf("no description: %v %q", res.IsError, res.Text)
	}
}

// Issue 4: 32 commands run at the same time. Each waits until all 32 have
// started, so a serialising executor would hit the timeout instead.
func TestParallelCommandsOverlap(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	const n = 32
	results := make([]*tools.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = run(t, k, session("s"+strconv.Itoa(i%4), dir),
				`touch started.`+strconv.Itoa(i)+`
while :; do set -- started.*; [ $# -ge `+strconv.Itoa(n)+` ] && break; sleep 0.02; done
echo ok`, "timeoutMs", 60000)
		})
	}
	wg.Wait()
	for i, res := range results {
		if res.Text != "ok\n" {
			t.Errorf("command %d: %q", i, res.Text)
		}
	}
}

// Issue 4: cancelling a call kills its whole group at once, even a process
// that ignores SIGTERM, and returns at once with ctx's error (issue 11: no
// result, which nobody would read; the runtime answers "cancelled").
func TestCancelKillsAndReturns(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		args, _ := json.Marshal(map[string]any{
			"command":     "trap '' TERM; sleep 30 & echo $! > pids; echo started; wait",
			"description": "Sleep until cancelled",
		})
		res, err := k.bash.Call(ctx, &tools.Call{ID: "c", Session: session("a", dir), Arguments: args})
		if res != nil {
			t.Errorf("cancelled call returned a result: %q", res.Text)
		}
		done <- err
	}()
	pids := readPids(t, filepath.Join(dir, "pids"), 1)
	killLater(t, pids...)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	waitDead(t, pids...)
}
