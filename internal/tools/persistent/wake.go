package persistent

import (
	"os"
	"sync"
	"syscall"
	"time"
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
type waker struct {
	f    *os.File
	rc   syscall.RawConn
	buf  [8]byte
	read func(fd uintptr) bool // readCounter, bound once so that a wait allocates nothing
	wake func()                // signal, bound once, for context.AfterFunc
}

// wakeOne is the eventfd increment a signal adds.
var wakeOne = [8]byte{1}

// signal wakes the call parked in wait, or the next one to wait: a signal
// no wait consumed only makes a later wait check its conditions once more.
// Safe from any goroutine, and after the waker was closed.
func (w *waker) signal() {
	_ = w.rc.Write(func(fd uintptr) bool {
		_, _ = rawWrite(fd, wakeOne[:]) // a full counter already wakes
		return true
	})
}

// wait returns once done reports true, or deadline passes, checking done
// at every signal.
func (w *waker) wait(deadline time.Time, done func() bool) {
	if err := w.f.SetReadDeadline(deadline); err != nil {
		return
	}
	for !done() {
		if err := w.rc.Read(w.read); err != nil {
			return // the deadline passed
		}
	}
}

// readCounter takes the eventfd's count, for rc.Read: false (wait) while
// there is none.
func (w *waker) readCounter(fd uintptr) bool {
	_, err := rawRead(fd, w.buf[:])
	return err != syscall.EAGAIN
}

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
