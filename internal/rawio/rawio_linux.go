//go:build linux

// Package rawio reads and writes descriptors that never block without
// telling the Go scheduler, and parks goroutines in the Go poller on a
// Bell (issue 16).
//
// A system call through package syscall marks its thread as in a system
// call, so that the scheduler can hand the thread's P on if the call
// blocks. When every P was idle just before, which is the state a runtime
// waiting for a shell is in, that also wakes the runtime's monitor thread
// (sysmon) from its deep sleep, and sysmon then polls for some tens of
// microseconds before it sleeps again: a futex wake, a futex wait, a
// nanosleep or two and as many context switches per round trip of a
// persistent shell, about a fifth of the runtime's CPU for a `true`. A call
// that cannot block has no P to hand on, so it is made with RawSyscall.
//
// Use it only on descriptors that are non-blocking (a terminal master or
// FIFO in non-blocking mode, an eventfd) or whose I/O never waits for a
// device (a file on a memory file system): a raw call that blocks holds
// its P for as long.
package rawio

import (
	"syscall"
	"unsafe"
)

// Read is read(2) of fd. EINTR is retried.
func Read(fd uintptr, b []byte) (int, error) { return do(syscall.SYS_READ, fd, b) }

// Write is write(2) to fd: one call, which may write less than b. EINTR
// is retried.
func Write(fd uintptr, b []byte) (int, error) { return do(syscall.SYS_WRITE, fd, b) }

// nothing is what an empty buffer's address points at.
var nothing byte

func do(trap, fd uintptr, b []byte) (int, error) {
	p := unsafe.Pointer(&nothing)
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	for {
		n, _, errno := syscall.RawSyscall(trap, fd, uintptr(p), uintptr(len(b)))
		switch errno {
		case 0:
			return int(n), nil
		case syscall.EINTR:
			continue
		}
		return 0, errno
	}
}
