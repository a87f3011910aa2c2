package pty

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
)

// reapTimeout bounds how long Close waits for a killed program to be reaped.
// SIGKILL cannot be caught, so only a process stuck in the kernel (an
// unkillable disk wait) takes this long.
const reapTimeout = 3 * time.Second

func newProcess(proc *os.Process, master *os.File, ttyName string, onDone func()) *Process {
	p := &Process{
		pid:     proc.Pid,
		ttyName: ttyName,
		master:  master,
		reaped:  make(chan struct{}),
		onDone:  onDone,
	}
	p.raw, _ = master.SyscallConn() // nil: ReadEach reads through Read
	go p.reap(proc.Wait)
	return p
}

// newSupervised is a program running under its supervisor, whose status
// is the program's.
func newSupervised(sup *spawnhelper.Process, master *os.File, ttyName string, onDone func()) *Process {
	p := &Process{
		pid:     sup.Pid(),
		ttyName: ttyName,
		master:  master,
		reaped:  make(chan struct{}),
		sup:     sup,
		onDone:  onDone,
	}
	p.raw, _ = master.SyscallConn() // nil: ReadEach reads through Read
	// Reaped once the supervisor has exited, when Wait returns at once:
	// until then a live session has no goroutine and no thread waiting
	// for it (issue 16: a Wait that blocks held an OS thread per live
	// session, and a goroutine parked on its report pipe the stack and g
	// it kept).
	sup.OnExit(func() { p.reap(sup.Wait) })
	return p
}

// reap waits for this one child (never for any child: the host owns the
// others) and records how it ended.
func (p *Process) reap(wait func() (*os.ProcessState, error)) {
	defer func() {
		close(p.reaped)
		p.nudgeReader()
		if p.onDone != nil {
			p.onDone()
		}
	}()
	state, err := wait()
	if err != nil {
		// ECHILD: the host ignores SIGCHLD and the kernel reaped the child.
		p.status = ExitStatus{Code: -1}
		return
	}
	p.status = statusOf(state)
}

func statusOf(state *os.ProcessState) ExitStatus {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitStatus{Code: -1, Signal: ws.Signal()}
	}
	return ExitStatus{Code: state.ExitCode()}
}

func (p *Process) read(b []byte) (int, error) {
	n, err := p.master.Read(b)
	for n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		// The reaper's nudge (see nudgeReader), which only ReadEach needs.
		_ = p.master.SetReadDeadline(time.Time{}) // Best effort: fails only once closed, which the read reports.
		n, err = p.master.Read(b)
	}
	if err != nil && errors.Is(err, syscall.EIO) {
		// Linux reports a master whose slave side is closed everywhere as
		// EIO rather than EOF.
		err = io.EOF
	}
	return n, err
}

func (p *Process) close() error {
	p.closeOnce.Do(p.doClose)
	return p.err
}

func (p *Process) killSession() error {
	if p.sup == nil {
		return killSession(p.pid)
	}
	if err := p.sup.KillAll(); err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	timer := time.NewTimer(reapTimeout)
	defer timer.Stop()
	select {
	case <-p.reaped:
		return nil
	case <-timer.C:
		return fmt.Errorf("pty: supervisor of process %d still running %v after it was told to kill everything", p.pid, reapTimeout)
	}
}

func (p *Process) doClose() {
	killErr := p.KillSession()
	timer := time.NewTimer(reapTimeout)
	defer timer.Stop()
	select {
	case <-p.reaped:
	case <-timer.C:
		p.err = fmt.Errorf("pty: process %d not reaped %v after SIGKILL", p.pid, reapTimeout)
	}
	if err := p.master.Close(); err != nil && p.err == nil {
		p.err = fmt.Errorf("pty: close terminal: %w", err)
	}
	if p.err == nil && killErr != nil {
		p.err = killErr
	}
}
