//go:build linux

package rpc

import (
	"os"
	"syscall"

	"github.com/shellport/shellport/internal/rawio"
	"golang.org/x/sys/unix"
)

// A bell parks an idle worker in the Go poller until it has a job or the
// server closes (issue 16). Woken from a channel, a worker is made runnable
// by the delivering goroutine, and the Go scheduler then wakes an idle
// thread to run it (a futex wake, that thread's search for work, and its
// sleep again), while the delivering thread goes back to wait for input.
// A goroutine the poller finds ready runs on the thread that polled
// instead, and the stdio carrier's reader, which waits for stdin in the
// poller, polls first when it goes back to wait: the job starts on the
// thread that read its request. The persistent tool's calls wait for their
// shells the same way (internal/tools/persistent, waker).
//
// The eventfd's count is never read: each ring makes it ready for the
// poller again (an eventfd wakes its waiters at every write, whatever its
// count), a wait starts by dropping the readiness a past ring left (poll's
// prepareRead) and checks its condition before it parks, and every ring
// comes after the change that makes the condition true. At one ring per
// job, the 64-bit count never fills.
type bell struct {
	f     *os.File
	rc    syscall.RawConn
	until func() bool           // the condition of the wait in progress
	check func(fd uintptr) bool // checkUntil, bound once so that a wait allocates nothing
}

var ringOne = [8]byte{1}

// newBell returns a bell on a non-blocking eventfd, or nil when none can
// be made (the worker then waits on its channel).
func newBell() *bell {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "shellport-worker-bell")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close() // Best effort.
		return nil
	}
	b := &bell{f: f, rc: rc}
	b.check = b.checkUntil
	return b
}

// ring wakes the wait in progress, or makes the next one check its
// condition once more. Safe from any goroutine, and after close.
func (b *bell) ring() {
	_ = b.rc.Write(func(fd uintptr) bool {
		_, _ = rawio.Write(fd, ringOne[:])
		return true
	})
}

// wait returns once until holds, checking it at every ring, or when the
// bell is closed. One goroutine at a time.
func (b *bell) wait(until func() bool) {
	b.until = until
	_ = b.rc.Read(b.check)
	b.until = nil
}

func (b *bell) checkUntil(uintptr) bool { return b.until() }

func (b *bell) close() { _ = b.f.Close() } // Best effort.
