//go:build linux

package persistent

import (
	"syscall"
	"unsafe"
)

// rawRead and rawWrite are read(2) and write(2) of a descriptor that never
// blocks (a FIFO opened by openFIFO, a waker's eventfd, the inbox on a
// memory file system), made without telling the Go scheduler
// (RawSyscall). A call through package syscall marks its thread as in a
// system call so that the scheduler can hand the thread's P on if the call
// blocks; when every P was idle just before (the runtime waiting for
// bash), the first such call also wakes the runtime's monitor thread
// (sysmon) from its deep sleep, and sysmon then polls for a few dozen
// microseconds before it sleeps again: a futex wake, a futex wait, one or
// two nanosleeps and as many context switches per round trip, about a
// fifth of the runtime's CPU per persistent `true` (issue 16). A call that
// cannot block has nothing to hand on. EINTR is retried.
func rawRead(fd uintptr, b []byte) (int, error) { return rawIO(syscall.SYS_READ, fd, b) }

func rawWrite(fd uintptr, b []byte) (int, error) { return rawIO(syscall.SYS_WRITE, fd, b) }

// rawNothing is what an empty buffer's address points at.
var rawNothing byte

func rawIO(trap, fd uintptr, b []byte) (int, error) {
	p := unsafe.Pointer(&rawNothing)
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
