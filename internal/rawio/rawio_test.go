//go:build unix

package rawio_test

import (
	"errors"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/rawio"
)

// Read and Write move bytes through a non-blocking pipe, an empty buffer
// included, and report EAGAIN where a blocking call would wait.
func TestNonBlockingPipe(t *testing.T) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(p[0]); _ = unix.Close(p[1]) })
	for _, fd := range p {
		if err := unix.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
	}
	r, w := uintptr(p[0]), uintptr(p[1])
	buf := make([]byte, 8)
	if _, err := rawio.Read(r, buf); !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("read of an empty pipe: %v, want EAGAIN", err)
	}
	if n, err := rawio.Write(w, nil); n != 0 || err != nil {
		t.Fatalf("empty write: %d, %v", n, err)
	}
	if n, err := rawio.Write(w, []byte("hello")); n != 5 || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	if n, err := rawio.Read(r, buf); n != 5 || err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read: %q, %v", buf[:n], err)
	}
	_ = unix.Close(p[1])
	p[1] = -1
	if n, err := rawio.Read(r, buf); n != 0 || err != nil {
		t.Fatalf("read at the end: %d, %v, want 0 and no error", n, err)
	}
}

// conditionFunc is a func as a wait's condition.
type conditionFunc func() bool

func (f conditionFunc) Holds() bool { return f() }

// Issue 16: a wait returns at the ring that makes its condition true,
// checks again after a stale ring instead of returning, and gives up at
// its deadline; a closed bell ends a wait and takes rings harmlessly.
func TestBellWaitsForItsCondition(t *testing.T) {
	b := rawio.NewBell("test-bell")
	if b == nil {
		t.Skip("no bell on this platform (Linux's eventfd)")
	}
	b.Ring() // stale: from a wait that already ended
	var ready atomic.Bool
	go func() {
		time.Sleep(20 * time.Millisecond) // the wait must not return before this
		ready.Store(true)
		b.Ring()
	}()
	b.Wait(time.Now().Add(time.Minute), conditionFunc(ready.Load)) // a hang guard
	if !ready.Load() {
		t.Fatal("the wait returned before its condition held")
	}

	// A wait that never gives up hangs here, which the test binary's own
	// timeout reports; one that gives up early is caught below. No bound
	// on how late it returns: on a loaded machine that is the scheduler's.
	deadline := time.Now().Add(50 * time.Millisecond)
	b.Wait(deadline, conditionFunc(func() bool { return false }))
	if time.Now().Before(deadline) {
		t.Fatal("the wait gave up before its deadline")
	}

	done := make(chan struct{})
	go func() {
		b.Wait(time.Time{}, conditionFunc(func() bool { return false }))
		close(done)
	}()
	time.Sleep(20 * time.Millisecond) // lets it park; the test holds without it too
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	<-done // a wait that a close does not end hangs here
	b.Ring()
}
