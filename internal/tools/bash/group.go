package bash

import (
	"os"
	"os/exec"
	"sync"
	"time"
)

// signal is a portable name for the two signals the tool sends.
type signal int

const (
	sigTerm signal = iota + 1
	sigKill
)

// stopCause says why the tool stopped a process group.
type stopCause uint8

const (
	causeNone     stopCause = iota
	causeTimeout            // the call's timeout fired
	causeCancel             // the call's context ended
	causeKill               // bash_kill
	causeSession            // the owning session closed
	causeShutdown           // Close
)

// group is one started command: a bash process leading its own session and
// process group, whose id is the bash pid.
type group struct {
	cmd   *exec.Cmd
	pid   int
	owner string
	done  chan struct{} // closed once the group is reaped and its output drained

	mu       sync.Mutex
	cause    stopCause // the first reason the tool stopped it
	timedOut bool
	ended    bool // reaped and swept: never signal this pgid again
	escalate *time.Timer
}

// stop asks the group to end: SIGTERM now and SIGKILL after grace, or SIGKILL
// at once when grace is zero. It reports false when the group had already
// ended, and then records nothing.
func (g *group) stop(c stopCause, grace time.Duration) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return false
	}
	if g.cause == causeNone {
		g.cause = c
	}
	if c == causeTimeout {
		g.timedOut = true
	}
	if grace <= 0 {
		_ = killGroup(g.pid, sigKill) // best effort: it may be exiting
		return true
	}
	_ = killGroup(g.pid, sigTerm) // best effort
	if g.escalate == nil {
		g.escalate = time.AfterFunc(grace, g.kill)
	}
	return true
}

func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		_ = killGroup(g.pid, sigKill) // best effort
	}
}

// wait reaps the bash process, then kills whatever it left running in its
// group, so a one-shot command leaves no orphans and its pipes reach EOF.
func (g *group) wait() (*os.ProcessState, error) {
	err := g.cmd.Wait()
	g.mu.Lock()
	_ = killGroup(g.pid, sigKill) // best effort: usually nobody is left
	g.ended = true
	if g.escalate != nil {
		g.escalate.Stop()
	}
	g.mu.Unlock()
	return g.cmd.ProcessState, err
}

// outcome returns why the tool stopped the group and whether its timeout fired.
func (g *group) outcome() (stopCause, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cause, g.timedOut
}

// exitInfo is how a process ended.
type exitInfo struct {
	code   int    // exit status; -1 when killed by a signal
	signal string // "SIGKILL"; empty for a normal exit
}
