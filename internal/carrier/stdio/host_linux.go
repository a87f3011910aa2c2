//go:build linux

package stdio

import (
	"os"

	"golang.org/x/sys/unix"
)

// watchParent closes the returned channel when the process that started
// this one exits. It waits on a pidfd of the parent (Linux 5.3); without
// one it polls getppid. Never PR_SET_PDEATHSIG: the kernel sends that when
// the parent's spawning thread exits, and a Python host may start the
// executable from a thread that ends long before the host does.
func watchParent() <-chan struct{} {
	gone := make(chan struct{})
	ppid := os.Getppid()
	if ppid <= 1 {
		return gone // started by init, or the parent is outside our pid namespace
	}
	fd, err := unix.PidfdOpen(ppid, 0)
	if err != nil {
		go pollParent(ppid, gone)
		return gone
	}
	go func() {
		defer unix.Close(fd)
		// The parent may have died before the pidfd was opened, and its pid
		// been reused since: the pidfd then names a stranger.
		if os.Getppid() != ppid {
			close(gone)
			return
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				pollParent(ppid, gone)
				return
			}
			if n > 0 {
				close(gone)
				return
			}
		}
	}()
	return gone
}
