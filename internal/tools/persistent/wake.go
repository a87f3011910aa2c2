package persistent

import (
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/rawio"
)

// A waker parks a call's goroutine in the Go poller until the call's end
// frame, the shell's death, its context or its timeout, whichever comes
// first (issue 16). The terminal reader signals it when it accepts the end
// frame. Woken from a channel, the call would be made runnable by the
// reader, and the Go scheduler then wakes an idle thread to look for work
// at every such hand-off; a goroutine the poller finds ready runs on the
// thread that polled, and the reader's thread, about to wait on the
// terminal again, polls first. In BenchmarkRoundTripTrue that halves the
// runtime's context switches per call. Where no waker can be made
// (newWaker returns nil), a call waits on its channels alone.
//
// The eventfd's count is never read. Each signal makes it ready again
// for the poller (an eventfd wakes its waiters at every write, however
// high its count), a wait starts by dropping the readiness a past signal
// left (poll's prepareRead), and every signal is sent after the change
// that makes a wait's condition true, so a wait checks its condition,
// then parks until a signal or its deadline, and checks again: no read
// is needed to tell a stale signal from a new one (issue 16: two reads per
// call fewer, the one that found nothing and the one that took the
// count). At one signal per call or fewer, the 64-bit count never fills.
type waker struct {
	f     *os.File
	rc    syscall.RawConn
	until condition             // the condition of the wait in progress
	check func(fd uintptr) bool // checkDone, bound once so that a wait allocates nothing
	wake  func()                // signal, bound once, for context.AfterFunc
}

// condition is what a wait waits for. An interface rather than a func,
// so that the call's state (a pointer) is the condition and no closure is
// made per call.
type condition interface{ holds() bool }

// wakeOne is the eventfd increment a signal adds.
var wakeOne = [8]byte{1}

// signal wakes the call parked in wait, or the next one to wait: a signal
// no wait consumed only makes a later wait check its conditions once more.
// Safe from any goroutine, and after the waker was closed.
func (w *waker) signal() {
	_ = w.rc.Write(func(fd uintptr) bool {
		_, _ = rawio.Write(fd, wakeOne[:])
		return true
	})
}

// wait returns once until holds, or deadline passes, checking until at
// every signal. One goroutine at a time may wait.
func (w *waker) wait(deadline time.Time, until condition) {
	if err := w.f.SetReadDeadline(deadline); err != nil {
		return
	}
	w.until = until
	_ = w.rc.Read(w.check) // returns once until holds, or with the deadline's error
	w.until = nil
}

// checkDone is wait's callback for rc.Read, called at once and then each
// time the eventfd is signalled: true ends the wait, false parks it until
// the next signal.
func (w *waker) checkDone(uintptr) bool { return w.until.holds() }

// maxIdleWakers bounds the wakers a tool keeps between calls: a waker is a
// descriptor, held only by calls in flight and this many spares.
const maxIdleWakers = 64

// wakerPool lends wakers to calls in flight.
type wakerPool struct {
	mu     sync.Mutex
	idle   []*waker
	closed bool
}

// get returns a waker, or nil when none can be made (or p is nil).
func (p *wakerPool) get() *waker {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	if n := len(p.idle); n > 0 && !p.closed {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return w
	}
	p.mu.Unlock()
	return newWaker()
}

func (p *wakerPool) put(w *waker) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < maxIdleWakers {
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	_ = w.f.Close() // Best effort.
}

// close closes the idle wakers; wakers still lent out are closed when
// they come back.
func (p *wakerPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, w := range idle {
		_ = w.f.Close() // Best effort.
	}
}
