//go:build unix

package inproc

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// readable polls fd, waiting up to ms milliseconds.
func readable(t *testing.T, fd int, ms int) bool {
	t.Helper()
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(p, ms)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("poll the ready descriptor: %v", err)
		}
		return n == 1 && p[0].Revents&unix.POLLIN != 0
	}
}

// TestReadyFDFollowsTheQueue (issue 16): the ready descriptor is readable
// exactly while messages wait for Recv, whoever sends them and however
// RecvMany takes them, and for good once the connection closes.
func TestReadyFDFollowsTheQueue(t *testing.T) {
	c := open(t)
	fd, err := c.ReadyFD()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.ReadyFD(); again != fd {
		t.Fatalf("ReadyFD gave %d, then %d", fd, again)
	}
	if readable(t, fd, 0) {
		t.Fatal("readable with nothing queued")
	}
	const senders, each = 4, 25
	var wg sync.WaitGroup
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, s*each+i+1)
				if err := c.Send([]byte(req)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	got := 0
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for got < senders*each && time.Now().Before(deadline) {
		if !readable(t, fd, 1000) {
			continue
		}
		msgs, err := c.RecvMany(0, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			t.Fatal("the descriptor was readable with nothing queued")
		}
		got += len(msgs)
	}
	wg.Wait()
	if got != senders*each {
		t.Fatalf("took %d replies, want %d", got, senders*each)
	}
	if readable(t, fd, 0) {
		t.Fatal("readable after every message was taken")
	}
	copyFD, err := unix.Dup(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(copyFD)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !readable(t, copyFD, 0) {
		t.Fatal("a duplicate of the descriptor is not readable after Close")
	}
	if _, err := c.ReadyFD(); err != ErrClosed {
		t.Fatalf("ReadyFD after Close: %v, want ErrClosed", err)
	}
}

// TestReadyFDAfterQueued: a descriptor made while messages already wait
// starts readable.
func TestReadyFDAfterQueued(t *testing.T) {
	c := open(t)
	if err := c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.RecvMany(20*time.Second, 1) // the reply is queued: wait for it, put nothing back
	if err != nil || len(msgs) != 1 {
		t.Fatalf("RecvMany: %q %v", msgs, err)
	}
	if err := c.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	for range 2000 { // a hang guard: wait until the reply is queued
		c.mu.Lock()
		n := len(c.queue)
		c.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fd, err := c.ReadyFD()
	if err != nil {
		t.Fatal(err)
	}
	if !readable(t, fd, 0) {
		t.Fatal("a descriptor made with a message queued is not readable")
	}
}
