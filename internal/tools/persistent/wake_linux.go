//go:build linux

package persistent

import (
	"os"

	"golang.org/x/sys/unix"
)

// newWaker makes a waker on an eventfd, non-blocking so that the Go poller
// watches it. It returns nil when the descriptor cannot be made (a call
// then waits on its channels alone).
func newWaker() *waker {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "shellport-call-waker")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close() // Best effort.
		return nil
	}
	w := &waker{f: f, rc: rc}
	w.check, w.wake = w.checkDone, w.signal
	return w
}
