package inproc

import "fmt"

// ReadyFD returns a descriptor that is readable while messages wait for
// Recv, and for good once the connection is closed, so a caller can wait
// for them in its own event loop (select, epoll, kqueue, asyncio's
// add_reader) instead of in a thread blocked in Recv, then take them with
// RecvMany and a zero timeout (issue 16). The caller only watches it: it
// must not read, write or close it; Close closes it, so a caller that
// keeps watching past Close watches a duplicate of its own (dup).
//
// It is made on first use; a connection nobody asked for it pays nothing.
// It is level-triggered by construction: under c.mu it is made readable
// when the queue goes from empty to non-empty and emptied when RecvMany
// takes the last message, so its state always matches the queue's.
func (c *Conn) ReadyFD() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return -1, ErrClosed
	}
	if c.readiness == nil {
		r, err := newReadiness()
		if err != nil {
			return -1, fmt.Errorf("make the ready descriptor: %w", err)
		}
		c.readiness = r
		if len(c.queue) > 0 {
			r.set()
		}
	}
	return c.readiness.fd(), nil
}

// readiness is the ready descriptor: an eventfd on Linux, a pipe elsewhere.
// Its methods are called with Conn.mu held.
type readiness struct {
	readFD  int
	writeFD int // == readFD for an eventfd
	isSet   bool
}

func (r *readiness) fd() int { return r.readFD }

// set makes the descriptor readable (a no-op when it already is).
func (r *readiness) set() {
	if r.isSet {
		return
	}
	r.isSet = true
	r.signal()
}

// reset makes it unreadable again (a no-op when it is not readable).
func (r *readiness) reset() {
	if !r.isSet {
		return
	}
	r.isSet = false
	r.drain()
}
