//go:build linux

package spawnhelper

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
)

// openFDs counts this process's descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// Issue 16: a running supervised program costs the runtime one
// descriptor, the report pipe; os.Process would hold a pidfd besides.
func TestSupervisedProgramHoldsOneDescriptor(t *testing.T) {
	helper := testkit.SpawnHelper(t)
	const n = 8
	// The first starts open what every later one shares: /dev/null and
	// (the second, once the first was started the usual way) the narrow
	// spawn's socket pair.
	for range 2 {
		first, err := Start(context.Background(), Spec{Helper: helper, Path: "true", Dir: "/"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := first.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	before := openFDs(t)
	procs := make([]*Process, 0, n)
	for range n {
		p, err := Start(context.Background(), Spec{Helper: helper, Path: "sleep", Args: []string{"sleep", "60"}, Dir: "/"})
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	held := openFDs(t) - before
	for _, p := range procs {
		_ = p.KillAll()
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if held != n {
		t.Fatalf("%d running programs hold %d descriptors, want %d", n, held, n)
	}
	if after := openFDs(t); after != before {
		t.Fatalf("%d descriptors after every program was waited for, %d before", after, before)
	}
}

// Once a child has exited no signal goes out under its pid, which the
// kernel may give to another process as soon as the child is reaped.
func TestChildRefusesSignalsOnceExited(t *testing.T) {
	c, err := startChild("/bin/sh", []string{"sh", "-c", "exit 3"}, nil, []*os.File{nil, nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Wait()
	if err != nil || st.ExitCode() != 3 {
		t.Fatalf("status %v, %v; want exit 3", st, err)
	}
	if err := c.Signal(9); !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("a signal after the wait: %v, want os.ErrProcessDone", err)
	}
}
