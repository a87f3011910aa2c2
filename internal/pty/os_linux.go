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
