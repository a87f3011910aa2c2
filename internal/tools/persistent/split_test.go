package persistent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// StartCall sends a command to a shell that is up and returns without
// waiting for it (issue 16): the command here cannot end before the test
// opens a FIFO after StartCall returned. The call then ends on another
// goroutine, with the result Call would give; and a session with no
// shell yet is left to Call.
func TestStartCallDoesNotWaitForTheCommand(t *testing.T) {
	f := newFixture(t, Config{})
	call := func(command string) *tools.Call {
		return &tools.Call{ID: "c", Session: tools.Session{ID: "s", Key: "s", Cwd: f.cwd}, Arguments: args(command)}
	}
	if f.tool.StartCall(t.Context(), call("true"), func(func() (*tools.Result, error)) { t.Error("resumed") }) {
		t.Fatal("StartCall started a call in a session that has no shell yet")
	}
	f.run("x=kept")
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	type ended struct {
		res *tools.Result
		err error
	}
	done := make(chan ended, 1)
	started := f.tool.StartCall(t.Context(), call("read -r line < "+fifo+"; echo \"$x $line\""), func(finish func() (*tools.Result, error)) {
		res, err := finish()
		done <- ended{res, err}
	})
	if !started {
		t.Fatal("StartCall did not start a call to a shell that is up")
	}
	gate, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for the command to open it
	if err != nil {
		t.Fatal(err)
	}
	_, _ = gate.WriteString("opened\n")
	_ = gate.Close()
	e := <-done
	if e.err != nil || e.res.IsError || !strings.Contains(e.res.Text, "kept opened") {
		t.Fatalf("result %+v, error %v", e.res, e.err)
	}
}

// A split call cancelled while its command runs resets the shell, as a
// cancelled Call does, and the next result says so.
func TestStartCallCancelled(t *testing.T) {
	f := newFixture(t, Config{})
	f.run("x=1")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	call := &tools.Call{ID: "c", Session: tools.Session{ID: "s", Key: "s", Cwd: f.cwd}, Arguments: args("sleep 60")}
	if !f.tool.StartCall(ctx, call, func(finish func() (*tools.Result, error)) {
		_, err := finish()
		done <- err
	}) {
		t.Fatal("not started")
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	res := f.run("echo ${x:-unset}")
	if !strings.Contains(res.Text, "unset") || !strings.Contains(strings.ToLower(res.Text), "reset") {
		t.Fatalf("after a cancelled call: %q", res.Text)
	}
}

// A cancel racing the end frame: whichever wins, a split call is resumed
// exactly once, with its result or with the cancellation (and then the
// next call says the shell was reset), and the session goes on.
func TestStartCallCancelRacesTheFrame(t *testing.T) {
	f := newFixture(t, Config{})
	f.run("true")
	call := &tools.Call{ID: "c", Session: tools.Session{ID: "s", Key: "s", Cwd: f.cwd}, Arguments: args("echo ok")}
	for i := range 100 {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 2)
		started := f.tool.StartCall(ctx, call, func(finish func() (*tools.Result, error)) {
			res, err := finish()
			if err == nil && !strings.Contains(res.Text, "ok") {
				t.Errorf("call %d: result %q", i, res.Text)
			}
			done <- err
		})
		if !started { // the last cancel reset the shell: start the next one
			cancel()
			f.run("true")
			continue
		}
		if i%2 == 0 {
			cancel()
		}
		if err := <-done; err != nil && err != context.Canceled {
			t.Fatalf("call %d: %v", i, err)
		}
		cancel()
		select {
		case <-done:
			t.Fatalf("call %d resumed twice", i)
		default:
		}
	}
	if res := f.run("echo still"); !strings.Contains(res.Text, "still") {
		t.Fatalf("after the races: %q", res.Text)
	}
}
