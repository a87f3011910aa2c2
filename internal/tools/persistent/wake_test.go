package persistent

import (
	"errors"
	"os"
	"testing"
)

func testWaker(t *testing.T, p *wakerPool) *waker {
	t.Helper()
	w := p.get()
	if w == nil {
		t.Skip("no call waker on this platform")
	}
	return w
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
		if err := w.bell.Close(); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("waker %d still open after close: %v", i, err)
		}
	}
	w := lent[0]
	w.signal() // a late signal after close is harmless
}
