//go:build unix

package rawio

import (
	"os"
	"syscall"
	"time"
)

// A Bell parks a goroutine in the Go poller until a condition of its own
// holds, and any goroutine rings it (issue 16). The persistent tool's
// calls wait for their shells on one, and the executable's idle workers
// for their next job.
//
// Woken from a channel, a goroutine is made runnable by the waker, and the
// Go scheduler then wakes an idle thread to run it: a futex wake, that
// thread's search for work, and its sleep again. A goroutine the poller
// finds ready runs on the thread that polled instead, and a thread about
// to wait in the poller polls first.
//
// The descriptor (an eventfd) is never read: each ring makes it ready for
// the poller again (an eventfd wakes its waiters at every write, whatever
// its count), a wait starts by dropping the readiness a past ring left
// (the poller's prepareRead), and every ring comes after the change that
// makes a wait's condition true. So a wait checks its condition, parks
// until a ring or its deadline, and checks again: no read is needed to
// tell a stale ring from a new one. At one ring per wait or fewer, the
// 64-bit count never fills.
type Bell struct {
	f     *os.File
	rc    syscall.RawConn
	until Condition             // the condition of the wait in progress
	check func(fd uintptr) bool // checkUntil, bound once so that a wait allocates nothing
}

// Condition is what a Bell's wait waits for. An interface rather than a
// func, so that a caller's own state (a pointer) can be the condition and
// no closure is made per wait.
type Condition interface{ Holds() bool }

// NewBell returns a bell, or nil where none can be made (not Linux, or no
// descriptor left): its user then waits on its channels alone. name names
// the descriptor for os.File.
func NewBell(name string) *Bell {
	f := newBellFile(name)
	if f == nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close() // Best effort.
		return nil
	}
	b := &Bell{f: f, rc: rc}
	b.check = b.checkUntil
	return b
}

// one is 1 as an eventfd counts it.
var one = [8]byte{1}

// Ring wakes the wait in progress, or makes the next one check its
// condition once more. Safe from any goroutine, and after Close.
func (b *Bell) Ring() {
	_ = b.rc.Write(func(fd uintptr) bool {
		_, _ = Write(fd, one[:])
		return true
	})
}

// Wait returns once until holds, checking it at every ring, or when
// deadline passes (the zero time: never) or the bell is closed. One
// goroutine at a time.
func (b *Bell) Wait(deadline time.Time, until Condition) {
	if err := b.f.SetReadDeadline(deadline); err != nil {
		return
	}
	b.until = until
	_ = b.rc.Read(b.check) // returns once until holds, or with the deadline's error
	b.until = nil
}

// checkUntil is Wait's callback for rc.Read, called at once and then at
// every ring: true ends the wait, false parks it until the next ring.
func (b *Bell) checkUntil(uintptr) bool { return b.until.Holds() }

// Close closes the descriptor; a Wait in progress returns.
func (b *Bell) Close() error { return b.f.Close() }
