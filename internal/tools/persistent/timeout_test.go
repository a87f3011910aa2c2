package persistent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// Issue 3: a command waiting for terminal input does not hang past the
// timeout, and the result says it was waiting for input.
func TestReadUnderShortTimeout(t *testing.T) {
	f := newFixture(t, Config{TimeoutMs: 1000})
	f.expect("cd /; lost=1", "[no output]")
	res := f.run("echo asking; read -r answer; echo never")
	want := "asking\n" +
		"[the command was waiting for input from the terminal, which this tool cannot type; give the input through a pipe, a here-document or a file, or use the program's non-interactive option]\n" +
		"[timed out after 1 second]\n[the command was stopped and the shell was reset: its working directory, variables, functions and background jobs are gone, and the next command starts in a fresh shell in " + f.cwd + "]"
	if res.Text != want {
		t.Fatalf("got  %q\nwant %q", res.Text, want)
	}
	for k, v := range map[string]any{"timedOut": true, "waitingForInput": true, "shellReset": true, "exitCode": nil} {
		if structured(t, res, k) != v {
			t.Errorf("%s = %v, want %v", k, res.Structured[k], v)
		}
	}
	f.expect("echo \"[$lost]\"; pwd", "[]\n"+f.cwd+"\n")
}

// A timed-out command that ignores SIGINT and SIGTERM is still stopped, its
// partial output returned, and its session emptied.
func TestTimeoutEscalatesToKill(t *testing.T) {
	f := newFixture(t, Config{TimeoutMs: 500})
	f.expect("true", "[no output]")
	sid := f.shellOf("s").proc.Pid()
	res := f.run(`trap '' INT TERM; sleep 300 & echo partial; bash -c 'trap "" INT TERM; echo stubborn; while :; do sleep 1; done'`)
	if !strings.HasPrefix(res.Text, "partial\nstubborn\n[timed out after 500 ms]\n[the command was stopped and the shell was reset: ") {
		t.Fatalf("got %q", res.Text)
	}
	if structured(t, res, "waitingForInput") != false {
		t.Fatalf("a sleeping loop reported as waiting for input")
	}
	if left := sessionProcs(t, sid); len(left) != 0 {
		t.Fatalf("processes of the reset shell survived: %v", left)
	}
}

// Issue 3: cancellation resets the shell, discards the result and returns
// promptly. Issue 11: the next result says the shell was reset.
func TestCancelDuringCommand(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("kept=1", "[no output]")
	sid := f.shellOf("s").proc.Pid()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.callIn(ctx, "s", "echo started >"+f.cwd+"/flag; sleep 300")
		done <- err
	}()
	eventuallyFile(t, f.cwd+"/flag")
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(testWait):
		t.Fatal("cancelled call did not return")
	}
	if left := sessionProcs(t, sid); len(left) != 0 {
		t.Fatalf("processes survived cancellation: %v", left)
	}
	expectCancelNotice(t, f, "echo \"[$kept]\"", "[]\n")
}

// expectCancelNotice runs command after a cancelled call and requires its
// result to open with the notice that the shell was reset (issue 11), then
// the output want, and to report the reset in meta; the call after it is
// plain again.
func expectCancelNotice(t *testing.T, f *fixture, command, want string) {
	t.Helper()
	notice := "[the previous call was cancelled, which reset the shell; this command ran in a fresh shell in " + f.cwd +
		", without the earlier working directory, variables, functions or background jobs]\n"
	res := f.expect(command, notice+want)
	if structured(t, res, "shellReset") != true {
		t.Fatalf("shellReset %v after a cancelled call", res.Structured["shellReset"])
	}
	res = f.expect("true", "[no output]")
	if structured(t, res, "shellReset") != false {
		t.Fatalf("the reset was reported twice: %v", res.Structured)
	}
}

// Issue 3: even when the end marker was already seen, a cancelled call
// resets the shell, so the state change it made is gone.
func TestCancelAfterMarkerStillResets(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("true", "[no output]")
	ctx, cancel := context.WithCancel(context.Background())
	testOnlyAfterFrame = cancel
	t.Cleanup(func() { testOnlyAfterFrame = nil })
	_, err := f.callIn(ctx, "s", "changed=1; echo done")
	testOnlyAfterFrame = nil
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	expectCancelNotice(t, f, "echo \"[$changed]\"", "[]\n")
}

// A call whose context ends while it waits in the queue leaves the running
// call and the shell alone.
func TestCancelWhileQueued(t *testing.T) {
	f := newFixture(t, Config{})
	fifo := f.cwd + "/gate"
	f.expect("mkfifo "+fifo+"; state=kept", "[no output]")
	first := make(chan *tools.Result, 1)
	go func() { first <- f.run(": >" + f.cwd + "/running; read -r line <" + fifo + "; echo \"$line\"") }()
	eventuallyFile(t, f.cwd+"/running")
	s := f.sessionOf("s")
	ctx, cancel := context.WithCancel(context.Background())
	queued := make(chan error, 1)
	go func() { _, err := f.callIn(ctx, "s", "echo should-not-run"); queued <- err }()
	eventually(t, "second call queued", func() bool { return s.queue.queued() == 1 })
	cancel()
	if err := <-queued; !errors.Is(err, context.Canceled) {
		t.Fatalf("queued call: %v", err)
	}
	f.writeFIFO(fifo, "released\n")
	if res := <-first; res.Text != "released\n" {
		t.Fatalf("first call: %q", res.Text)
	}
	f.expect("echo $state", "kept\n")
}

// Issue 10: when a command cannot be handed to the shell at all, the shell
// is reset and the result says both: the command did not run, and the
// state is gone.
func TestSendFailureIsDisclosed(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("kept=yes", "[no output]")
	_ = f.shellOf("s").ctl.Close() // the shell can no longer be woken
	res, err := f.callIn(context.Background(), "s", "echo never")
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text, "could not be handed to the shell") || !strings.Contains(res.Text, "so it did not run; the shell was reset") {
		t.Fatalf("got %q", res.Text)
	}
	if structured(t, res, "shellReset") != true {
		t.Fatalf("shellReset %v", res.Structured["shellReset"])
	}
	f.expect("echo \"[$kept]\"", "[]\n")
}
