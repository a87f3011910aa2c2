package persistent

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

func testWaker(t *testing.T, p *wakerPool) *waker {
	t.Helper()
	w := p.get()
	if w == nil {
		t.Skip("no call waker on this platform")
	}
	return w
}

// Issue 16: a wait returns at the signal that makes its condition true,
// checks again after a stale signal instead of returning, and gives up at
// its deadline.
func TestWakerWaitsForItsCondition(t *testing.T) {
	p := &wakerPool{}
	defer p.close()
	w := testWaker(t, p)
	defer p.put(w)

	w.signal() // stale: from a call that already left
	var ready atomic.Bool
	go func() {
		time.Sleep(20 * time.Millisecond) // the wait must not return before this
		ready.Store(true)
		w.signal()
	}()
	w.wait(time.Now().Add(testWait), conditionFunc(ready.Load))
	if !ready.Load() {
		t.Fatal("the wait returned before its condition held")
	}

	// A wait that never gives up hangs here, which the test binary's own
	// timeout reports; one that gives up early is caught below. No bound
	// on how late it returns: on a loaded machine that is the scheduler's.
	deadline := time.Now().Add(50 * time.Millisecond)
	w.wait(deadline, conditionFunc(func() bool { return false }))
	if time.Now().Before(deadline) {
		t.Fatal("the wait gave up before its deadline")
	}
}

// Issue 16: the pool keeps at most maxIdleWakers descriptors between calls
// and closes them all with the tool, including one lent out at the time.
func TestWakerPoolBoundsAndCloses(t *testing.T) {
	p := &wakerPool{}
	lent := make([]*waker, maxIdleWakers+10)
	for i := range lent {
		lent[i] = testWaker(t, p)
	}
	for _, w := range lent[1:] {
		p.put(w)
	}
	if len(p.idle) != maxIdleWakers {
		t.Fatalf("%d idle wakers, want %d", len(p.idle), maxIdleWakers)
	}
	p.close()
	p.put(lent[0])
	for i, w := range lent {
		if _, err := w.f.Write(wakeOne[:]); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("waker %d still open after close: %v", i, err)
		}
	}
	w := lent[0]
	w.signal() // a late signal after close is harmless
}

// conditionFunc is a func as a wait's condition.
type conditionFunc func() bool

func (f conditionFunc) holds() bool { return f() }
