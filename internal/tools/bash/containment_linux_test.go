//go:build linux

package bash_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// Issue 10, processes that escape: a one-shot command's setsid, double-fork,
// nohup, disown and set -m children are killed by the command's supervisor
// when the command ends, at its timeout, by bash_kill, when the session
// closes and when the tool closes. Each test counts the processes by a
// marker no other process has.

func startedEscapes(t *testing.T, res *tools.Result) {
	t.Helper()
	if !strings.Contains(res.Text, "started") {
		t.Fatalf("the escapes never started: %q", res.Text)
	}
}

func TestIssue10EscapesDieWhenTheCommandEnds(t *testing.T) {
	k := newKit(t, bash.Config{})
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	res := run(t, k, session("a", t.TempDir()), testkit.Escapes(marker))
	startedEscapes(t, res)
	// The call returns once the supervisor has killed and reaped everything.
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes outlived the command: %v", left)
	}
}

func TestIssue10EscapesDieAtTheTimeout(t *testing.T) {
	k := newKit(t, bash.Config{})
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	res := run(t, k, session("a", t.TempDir()), testkit.Escapes(marker)+"\nsleep "+marker, "timeoutMs", 5000)
	startedEscapes(t, res)
	if res.Structured["timedOut"] != true {
		t.Fatalf("no timeout: %q", res.Text)
	}
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes outlived the timeout: %v", left)
	}
}

// waitTaskOutput polls bash_output until the task printed text.
func waitTaskOutput(t *testing.T, k *kit, s tools.Session, id, text string) {
	t.Helper()
	var seen string
	waitFor(t, "task output "+text, func() bool {
		seen += call(t, k.output, s, task(id)).Text
		return strings.Contains(seen, text)
	})
}

func TestIssue10EscapesDieWithBashKill(t *testing.T) {
	k := newKit(t, bash.Config{})
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	s := session("a", t.TempDir())
	id := startTask(t, k, s, testkit.Escapes(marker)+"\nsleep "+marker)
	waitTaskOutput(t, k, s, id, "started")
	testkit.WaitProcs(t, marker, testkit.EscapeKinds+1)
	res := call(t, k.kill, s, task(id))
	if res.Structured["killed"] != true {
		t.Fatalf("bash_kill: %q", res.Text)
	}
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes outlived bash_kill: %v", left)
	}
}

func TestIssue10EscapesDieWithTheSession(t *testing.T) {
	k := newKit(t, bash.Config{})
	background, foreground := testkit.Marker(), testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(background); testkit.KillProcs(foreground) })
	s := session("a", t.TempDir())
	id := startTask(t, k, s, testkit.Escapes(background)+"\nsleep "+background)
	waitTaskOutput(t, k, s, id, "started")
	done := make(chan error, 1)
	go func() {
		args, _ := json.Marshal(map[string]any{"command": testkit.Escapes(foreground) + "\nsleep " + foreground, "description": "Escape"})
		_, err := k.bash.Call(context.Background(), &tools.Call{ID: "fg", Session: s, Arguments: args})
		done <- err
	}()
	testkit.WaitProcs(t, background, testkit.EscapeKinds+1)
	testkit.WaitProcs(t, foreground, testkit.EscapeKinds+1)
	k.bash.(tools.SessionCloser).CloseSession("a")
	if left := append(testkit.Procs(background), testkit.Procs(foreground)...); len(left) != 0 {
		t.Fatalf("processes outlived the session: %v", left)
	}
	select {
	case err := <-done:
		if !errors.Is(err, bash.ErrSessionClosed) {
			t.Fatalf("the call in flight was not cut short: %v", err)
		}
	case <-time.After(testkit.ProcWait):
		t.Fatal("the call in flight never returned")
	}
}

func TestIssue10EscapesDieWithClose(t *testing.T) {
	k := newKit(t, bash.Config{})
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	s := session("a", t.TempDir())
	id := startTask(t, k, s, testkit.Escapes(marker)+"\nsleep "+marker)
	waitTaskOutput(t, k, s, id, "started")
	testkit.WaitProcs(t, marker, testkit.EscapeKinds+1)
	if err := k.bash.(tools.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes outlived Close: %v", left)
	}
}

// Issue 10, descriptors: a command sees only 0, 1 and 2, whatever the
// runtime's process has open.
func TestIssue10CommandSeesOnlyStandardDescriptors(t *testing.T) {
	k := newKit(t, bash.Config{})
	leaked, err := syscall.Dup(2) // inheritable: no close-on-exec
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(leaked)
	res := run(t, k, session("a", t.TempDir()), `ls -l /proc/self/fd`)
	if got := inheritedFds(res.Text); got != "0 1 2" {
		t.Fatalf("a process of the command has fds %q, want 0 1 2:\n%s", got, res.Text)
	}
}
