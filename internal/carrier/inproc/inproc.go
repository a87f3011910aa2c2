// Package inproc connects a caller in the same process to a runtime: the C
// ABI (capi) and the executable's one-off `call` command both use it.
//
// Messages go in with Send and come out with Recv, in order. Call sends a
// request and waits for its own reply; that reply goes to the caller, never
// into the Recv queue, so a blocking Call and a reader draining Recv can
// share one connection. Call does not match replies by id: the runtime hands
// the reply of that one delivery to that one caller, so ids that are spelt
// oddly, repeated, or invalid cannot make a Call wait forever or take
// another request's answer.
package inproc

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/rpc"
)

// ErrClosed is returned once the connection is closed.
var ErrClosed = errors.New("connection closed")

// Conn is an in-process connection to a Runtime. It is safe for concurrent
// use.
type Conn struct {
	rt *core.Runtime

	sendMu sync.Mutex // keeps Deliver calls in one order

	mu     sync.Mutex
	queue  [][]byte
	ready  chan struct{} // has a token while queue is non-empty
	done   chan struct{} // closed by Close
	closed bool
}

// OpenOptions returns a connection to a new runtime made from opts;
// opts.Send is replaced by the connection's own. (On Linux opts.SpawnHelper
// must name the spawn helper, or the runtime's first request fails.)
func OpenOptions(opts core.Options) *Conn {
	c := &Conn{ready: make(chan struct{}, 1), done: make(chan struct{})}
	opts.Send = c.enqueue
	c.rt = core.New(opts)
	return c
}

// enqueue takes every outgoing message that is not a Call's own reply.
func (c *Conn) enqueue(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.queue = append(c.queue, msg)
	select {
	case c.ready <- struct{}{}:
	default:
	}
	return nil
}

// Send delivers one message to the runtime.
func (c *Conn) Send(msg []byte) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	c.rt.Deliver(msg)
	return nil
}

// Recv returns the next queued message, waiting up to timeout. It returns
// (nil, nil) on timeout and ErrClosed once the connection is closed.
func (c *Conn) Recv(timeout time.Duration) ([]byte, error) {
	var timer <-chan time.Time
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			msg := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			if len(c.queue) > 0 {
				select {
				case c.ready <- struct{}{}:
				default:
				}
			}
			c.mu.Unlock()
			return msg, nil
		}
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return nil, ErrClosed
		}
		if timeout <= 0 {
			return nil, nil
		}
		if timer == nil {
			t := time.NewTimer(timeout)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-c.ready:
		case <-c.done:
		case <-timer:
			return nil, nil
		}
	}
}

// Call sends a message and waits for its reply, which is returned and never
// queued for Recv. A notification returns (nil, nil) at once. A message that
// is not a valid request (bad JSON, an id that is an object, array or bool)
// returns the runtime's error reply for it. If the connection closes first,
// Call returns a shut-down error reply.
func (c *Conn) Call(msg []byte) ([]byte, error) {
	w := make(chan []byte, 1) // the runtime replies at most once per delivery
	c.sendMu.Lock()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		c.sendMu.Unlock()
		return nil, ErrClosed
	}
	replies := c.rt.DeliverTo(msg, func(reply []byte) error {
		select {
		case w <- reply:
		default: // cannot happen: one reply per request
		}
		return nil
	})
	c.sendMu.Unlock()
	if !replies {
		return nil, nil
	}
	select {
	case reply := <-w:
		return reply, nil
	case <-c.done:
		select {
		case reply := <-w: // answered while closing
			return reply, nil
		default:
		}
		return rpc.EncodeResponse(nil, nil, rpc.Errorf(rpc.CodeShutDown, "runtime closed before answering"))
	}
}

// Close shuts the runtime down (killing every process it started) and wakes
// every waiting Call. It is safe to call more than once.
func (c *Conn) Close() error {
	err := c.rt.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	close(c.done)
	if err != nil {
		return fmt.Errorf("close runtime: %w", err)
	}
	return nil
}
