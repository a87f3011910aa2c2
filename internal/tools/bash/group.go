package bash

import (
	"os"
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
// process group, whose id is the bash pid, and on Linux the supervisor that
// owns every process it starts.
type group struct {
	proc  launched
	pid   int // the shell's, which is its group's id
	owner string
	done  chan struct{} // closed once the group is reaped and its output drained

	mu       sync.Mutex
	cause    stopCause // the first reason the tool stopped it
	timedOut bool
	ended    bool // reaped and swept: never signal this pgid again
	escalate *time.Timer
}

// stop asks the group to end: SIGTERM to the shell's group now, then after
// grace (at once when grace is zero) SIGKILL to every process the command
// started. It reports false when the group had already
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
		g.proc.killAll()
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
		g.proc.killAll()
	}
}

// wait returns once the shell has ended and whatever it left running has
// been killed, so a one-shot command leaves no orphans and its pipes reach
// EOF.
func (g *group) wait() (*os.ProcessState, error) {
	ps, err := g.proc.wait()
	g.mu.Lock()
	g.ended = true
	if g.escalate != nil {
		g.escalate.Stop()
	}
	g.mu.Unlock()
	return ps, err
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
