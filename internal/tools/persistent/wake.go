package persistent

import (
	"sync"
	"time"

	"github.com/shellport/shellport/internal/rawio"
)

// A waker parks a call's goroutine in the Go poller until the call's end
// frame, the shell's death, its context or its timeout, whichever comes
// first (issue 16): a rawio.Bell, which the terminal reader rings when it
// accepts the end frame. Woken from a channel, the call would be made
// runnable by the reader, and the Go scheduler then wakes an idle thread
// to look for work at every such hand-off; a goroutine the poller finds
// ready runs on the thread that polled, and the reader's thread, about to
// wait on the terminal again, polls first. In BenchmarkRoundTripTrue that
// halves the runtime's context switches per call. Where no bell can be
// made (newWaker returns nil), a call waits on its channels alone.
type waker struct {
	bell *rawio.Bell
	wake func() // bell.Ring, bound once, for context.AfterFunc
}

// newWaker returns a waker, or nil where no bell can be made.
func newWaker() *waker {
	b := rawio.NewBell("shellport-call-waker")
	if b == nil {
		return nil
	}
	return &waker{bell: b, wake: b.Ring}
}

// signal wakes the call parked in wait, or the next one to wait: a signal
// no wait consumed only makes a later wait check its conditions once more.
// Safe from any goroutine, and after the waker was closed.
func (w *waker) signal() { w.bell.Ring() }

// wait returns once until holds, or deadline passes, checking until at
// every signal. One goroutine at a time may wait.
func (w *waker) wait(deadline time.Time, until rawio.Condition) { w.bell.Wait(deadline, until) }

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
	_ = w.bell.Close() // Best effort.
}

// close closes the idle wakers; wakers still lent out are closed when
// they come back.
func (p *wakerPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, w := range idle {
		_ = w.bell.Close() // Best effort.
	}
}
