//go:build linux

package persistent

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// waitingForWake reports whether the shell is blocked reading its control
// FIFO (the loop waiting for a wake byte) with nothing in it: from
// /proc/PID/syscall, which names the system call a blocked process is in
// and its first argument, and TIOCINQ (FIONREAD: the bytes a FIFO holds).
// False when either cannot be read.
func (s *shell) waitingForWake() bool {
	if !s.blockedOnCtl() {
		return false
	}
	var pending int
	sc, err := s.ctl.SyscallConn()
	if err != nil {
		return false
	}
	var ioErr error
	if err := sc.Control(func(fd uintptr) { pending, ioErr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ioErr != nil || pending != 0 {
		return false
	}
	// Asked again: a shell that took the wake byte between the two looks
	// and is back in the read has run the command, and its report is in
	// the return FIFO, which the caller reads next.
	return s.blockedOnCtl()
}

// blockedOnCtl reports whether the shell is in read(2) of its control
// FIFO.
func (s *shell) blockedOnCtl() bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.proc.Pid()) + "/syscall")
	if err != nil {
		return false
	}
	want := strconv.Itoa(unix.SYS_READ) + " 0x" + strconv.FormatInt(fdCtl, 16) + " "
	return len(b) > len(want) && string(b[:len(want)]) == want
}
