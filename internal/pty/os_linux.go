//go:build linux

package pty

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)

// supervised: with a spawn helper, programs run under a supervisor.
const supervised = true

// masterPolled: the master is non-blocking and in the Go poller (see pollable).
const masterPolled = true

// pollable returns the master as a non-blocking file registered with the Go
// poller, so that Close wakes a blocked Read. creack/pty hands it back in
// blocking mode (its ioctls go through Fd), so take a fresh descriptor.
func pollable(master *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(master.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("pty: duplicate master: %w", err)
	}
	_ = master.Close() // Best effort: the duplicate carries on.
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd) // Best effort.
		return nil, fmt.Errorf("pty: make master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

func setParentDeath(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// foregroundGroup asks the master for the slave's foreground process group.
func (p *Process) foregroundGroup() int {
	var pgrp int
	err := p.control(func(fd int) (err error) {
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	if err != nil {
		return 0
	}
	return pgrp
}

// awaitExit returns once the process pid, a child of this one, has exited
// (it is then a zombie, not reaped), parked in the Go poller on a pidfd
// rather than in a blocking wait that holds an OS thread. It returns at
// once when no pidfd can be had or waited on (kernels before 5.4, the
// descriptor limit): the caller's blocking wait then does the waiting.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	// Non-blocking, so os registers it with the poller, which reports a
	// pidfd readable once its process has exited. (PIDFD_NONBLOCK would
	// need Linux 5.10; the flag set here only tells os to poll it.)
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd) // Best effort.
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		// Not yet exited: waitid succeeds with si_signo zero (SIGCHLD once
		// it has). Any error (ECHILD: the host reaps its children itself)
		// leaves it to Wait.
		return err != nil || info.Signo != 0
	})
}
