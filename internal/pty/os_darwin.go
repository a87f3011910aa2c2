//go:build darwin

package pty

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)

// supervised is false: there is no child subreaper on darwin, so the spawn
// helper is only the exec shim that attaches the controlling terminal.
const supervised = false

// masterPolled: the master stays blocking (see pollable).
const masterPolled = false

// pollable keeps the master in blocking mode: kqueue does not support
// terminal devices, so the Go poller cannot wait on it.
func pollable(master *os.File) (*os.File, error) { return master, nil }

// setParentDeath does nothing: darwin has no parent-death signal. Close
// (and the runtime's shutdown) kill the session instead.
func setParentDeath(*syscall.SysProcAttr) {}

// foregroundGroup reads the terminal's foreground group from the kernel's
// process table: darwin answers TIOCGPGRP only to members of the session.
func (p *Process) foregroundGroup() int {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", p.pid)
	if err != nil {
		return 0
	}
	return int(kp.Eproc.Tpgid)
}
