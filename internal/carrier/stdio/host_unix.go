//go:build unix

package stdio

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// parentPoll is how often the getppid fallback looks.
const parentPoll = 200 * time.Millisecond

// pollParent closes gone once this process has another parent than ppid.
func pollParent(ppid int, gone chan struct{}) {
	for os.Getppid() == ppid {
		time.Sleep(parentPoll)
	}
	close(gone)
}

// readerGone closes the returned channel when out is a pipe, socket or
// terminal whose other side has gone away (POLLERR or POLLHUP with no event
// asked for); it never closes for anything else, such as a regular file.
func readerGone(out io.Writer) <-chan struct{} {
	gone := make(chan struct{})
	f, ok := out.(*os.File)
	if !ok {
		return gone
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return gone
	}
	fd := -1
	// Control, not Fd: Fd would put the descriptor into blocking mode.
	_ = sc.Control(func(p uintptr) { fd, _ = unix.FcntlInt(p, unix.F_DUPFD_CLOEXEC, 0) })
	if fd < 0 {
		return gone
	}
	go func() {
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd)}}
		for {
			_, err := unix.Poll(fds, -1)
			if err == syscall.EINTR {
				continue
			}
			if err == nil && fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
				close(gone)
			}
			return
		}
	}()
	return gone
}
