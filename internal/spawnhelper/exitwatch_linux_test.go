//go:build linux

package spawnhelper_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 16: OnExit learns of a supervisor's end with no goroutine of the
// process's own waiting for it, so that thousands of live sessions hold
// none; the one exit watcher serves them all.

// exited is what an OnExit function saw.
type exited struct {
	status syscall.WaitStatus
	lost   bool
}

func watch(t *testing.T, p *spawnhelper.Process) <-chan exited {
	t.Helper()
	done := make(chan exited, 1)
	p.OnExit(func() {
		st, err := p.Wait()
		if err != nil {
			t.Errorf("Wait: %v", err)
			done <- exited{}
			return
		}
		done <- exited{status: st.Sys().(syscall.WaitStatus), lost: p.Lost()}
	})
	return done
}

func await(t *testing.T, done <-chan exited, what string) exited {
	t.Helper()
	select {
	case e := <-done:
		return e
	case <-time.After(testWait):
		t.Fatalf("%s: OnExit's function did not run within %v", what, testWait)
	}
	return exited{}
}

func TestOnExitWaitsWithNoGoroutinePerProcess(t *testing.T) {
	const n = 64
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	// The watcher's own goroutine starts with the first OnExit.
	first := bash(t, "exit 3")
	if e := await(t, watch(t, first.Process), "the first"); !e.status.Exited() || e.status.ExitStatus() != 3 || e.lost {
		t.Fatalf("the first: %v, lost %v: want exit 3", e.status, e.lost)
	}
	before := runtime.NumGoroutine()
	procs := make([]*started, n)
	stdins := make([]*os.File, n)
	dones := make([]<-chan exited, n)
	for i := range procs {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		stdins[i] = w
		t.Cleanup(func() { _ = w.Close() })
		// Each leaves a detached process behind, for the sweep at its
		// end, and waits for its stdin's end.
		procs[i] = start(t, spawnhelper.Spec{Stdin: r}, "bash", "--noprofile", "--norc", "-c",
			`setsid sleep `+marker+` </dev/null >/dev/null 2>&1 & echo ready; read -r _; exit `+strconv.Itoa(i%7))
		_ = r.Close()
		procs[i].waitFor(t, "ready")
		dones[i] = watch(t, procs[i].Process)
	}
	testkit.WaitProcs(t, marker, n)
	if grew := runtime.NumGoroutine() - before; grew > n/8 {
		t.Fatalf("%d live supervisors added %d goroutines", n, grew)
	}
	// Half end on their own (their stdin reaches its end), half are killed.
	for i, p := range procs {
		if i%2 == 0 {
			if err := p.KillAll(); err != nil {
				t.Fatal(err)
			}
		} else {
			_ = stdins[i].Close()
		}
	}
	for i, done := range dones {
		e := await(t, done, "process "+strconv.Itoa(i))
		switch {
		case e.lost:
			t.Errorf("process %d: its supervisor was lost", i)
		case i%2 == 0 && !(e.status.Signaled() && e.status.Signal() == syscall.SIGKILL) && !(e.status.Exited() && e.status.ExitStatus() == i%7):
			t.Errorf("process %d, killed: %v", i, e.status)
		case i%2 == 1 && !(e.status.Exited() && e.status.ExitStatus() == i%7):
			t.Errorf("process %d: %v, want exit %d", i, e.status, i%7)
		}
	}
	testkit.WaitNoProcs(t, marker, "processes the programs left, after their supervisors ended")
}

func TestOnExitSeesAKilledSupervisor(t *testing.T) {
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	p := bash(t, `sleep `+marker+` </dev/null >/dev/null 2>&1 & echo ready; exec sleep `+marker)
	p.waitFor(t, "ready")
	done := watch(t, p.Process)
	testkit.WaitProcs(t, marker, 2)
	if err := syscall.Kill(p.SupervisorPid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e := await(t, done, "the killed supervisor's")
	if !e.status.Signaled() || e.status.Signal() != syscall.SIGKILL || !e.lost {
		t.Fatalf("status %v, lost %v: want SIGKILL and a lost supervisor", e.status, e.lost)
	}
	testkit.WaitNoProcs(t, marker, "processes of the program's session after its supervisor was killed")
}

// A program that ends at once may have its supervisor's whole report,
// "end" included, read with the first line by Start: OnExit must still
// run, and Wait still find the end.
func TestOnExitAfterTheWholeReportWasRead(t *testing.T) {
	for range 20 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: testkit.SpawnHelper(t), Path: "true", Stdout: w})
		_ = w.Close()
		_ = r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if e := await(t, watch(t, p), "true"); !e.status.Exited() || e.status.ExitStatus() != 0 || e.lost {
			t.Fatalf("true: %v, lost %v", e.status, e.lost)
		}
	}
}
