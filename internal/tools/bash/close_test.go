package bash_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// foreground starts a foreground call in the background of the test and
// returns a channel for its error: a call cut short by a close returns
// one, and no result.
func foreground(t *testing.T, k *kit, s tools.Session, command string) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		args, _ := json.Marshal(map[string]any{"command": command, "description": "Run until stopped"})
		res, err := k.bash.Call(t.Context(), &tools.Call{ID: "fg", Session: s, Arguments: args})
		if res != nil {
			t.Errorf("foreground call cut short returned a result: %q", res.Text)
		}
		done <- err
	}()
	return done
}

// Closing a session kills what it started — tasks and calls in flight,
// grandchildren included — and keeps the tasks' ownership records.
func TestCloseSessionKillsItsProcesses(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	a, b := session("a", dir), session("b", dir)
	idA := startTask(t, k, a, `trap '' TERM; sleep 30 & echo $! >> pids-a; sleep 30 & echo $! >> pids-a; wait`)
	idB := startTask(t, k, b, `sleep 30 & echo $! >> pids-b; wait`)
	fg := foreground(t, k, a, `sleep 30 & echo $! >> pids-fg; wait`)
	pidsA := readPids(t, filepath.Join(dir, "pids-a"), 2)
	pidsB := readPids(t, filepath.Join(dir, "pids-b"), 1)
	pidsFg := readPids(t, filepath.Join(dir, "pids-fg"), 1)
	killLater(t, append(append(pidsA, pidsB...), pidsFg...)...)

	// The runtime may close the session through each of the three tools.
	for _, tool := range []tools.Tool{k.bash, k.output, k.kill} {
		tool.(tools.SessionCloser).CloseSession("a")
	}
	waitDead(t, pidsA...)
	waitDead(t, pidsFg...)
	if err := <-fg; !errors.Is(err, bash.ErrSessionClosed) {
		t.Errorf("call in flight: %v", err)
	}
	for _, pid := range pidsB {
		if !alive(pid) {
			t.Errorf("session b's process %d died with session a", pid)
		}
	}
	if res := call(t, k.output, b, task(idA)); res.Text != "task bash-1 belongs to another session" {
		t.Errorf("b reads a's task: %q", res.Text)
	}
	if res := call(t, k.output, a, task(idA)); res.Text != "[no new output]\n[status: killed]" {
		t.Errorf("late read by a: %q", res.Text)
	}
	if res := call(t, k.output, b, task(idB)); res.Structured["status"] != "running" {
		t.Errorf("b's task: %q", res.Text)
	}
	if all := k.notices.all(); len(all) != 0 {
		t.Errorf("notices = %v", all)
	}
}

// Close kills every process group, owned or not, refuses new work and is
// harmless to repeat.
func TestCloseKillsEverything(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	startTask(t, k, session("", dir), `sleep 30 & echo $! >> pids; wait`)
	startTask(t, k, session("a", dir), `trap '' TERM; sleep 30 & echo $! >> pids; wait`)
	fg := foreground(t, k, session("b", dir), `sleep 30 & echo $! >> pids; wait`)
	pids := readPids(t, filepath.Join(dir, "pids"), 3)
	killLater(t, pids...)

	for _, tool := range []tools.Tool{k.bash, k.output, k.kill} {
		if err := tool.(tools.Closer).Close(); err != nil {
			t.Errorf("%s Close: %v", tool.Name(), err)
		}
	}
	waitDead(t, pids...)
	if err := <-fg; !errors.Is(err, bash.ErrClosed) {
		t.Errorf("call in flight: %v", err)
	}
	want := "the bash tool has been closed; no command was started"
	if res := call(t, k.bash, session("a", dir), map[string]any{"command": "true"}); !res.IsError || res.Text != want {
		t.Errorf("after Close: %v %q", res.IsError, res.Text)
	}
	if res := call(t, k.bash, session("a", dir), map[string]any{"command": "true", "run_in_background": true}); !res.IsError || res.Text != want {
		t.Errorf("task after Close: %v %q", res.IsError, res.Text)
	}
	k.bash.(tools.SessionCloser).CloseSession("a") // harmless after Close
}
