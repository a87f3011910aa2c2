// Package inproc connects a caller in the same process to a runtime: the C
// ABI (capi) and the executable's one-off `call` command both use it.
//
// Messages go in with Send and come out with Recv, in order. Call sends a
// request and waits for its own reply; that reply goes to the caller, never
// into the Recv queue, so a blocking Call and a reader draining Recv can
// share one connection.
package inproc

import (
	"encoding/json"
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

	mu      sync.Mutex
	queue   [][]byte
	ready   chan struct{} // has a token while queue is non-empty
	done    chan struct{} // closed by Close
	waiters map[string]chan []byte
	closed  bool
}

// Open returns a connection to a new runtime. A non-nil cfgErr is a config
// that failed to parse; it is reported to the first request.
func Open(cfg core.Config, cfgErr error, keepSpill bool) *Conn {
	return OpenOptions(core.Options{Config: cfg, ConfigErr: cfgErr, KeepSpill: keepSpill})
}

// OpenOptions is Open with every runtime option; opts.Send is replaced by
// the connection's own.
func OpenOptions(opts core.Options) *Conn {
	c := &Conn{ready: make(chan struct{}, 1), done: make(chan struct{}), waiters: map[string]chan []byte{}}
	opts.Send = c.route
	c.rt = core.New(opts)
	return c
}

// route takes every outgoing message: a reply someone is waiting for in Call
// goes to them, everything else to the Recv queue.
func (c *Conn) route(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if len(c.waiters) > 0 {
		if id, ok := replyID(msg); ok {
			if w := c.waiters[id]; w != nil {
				delete(c.waiters, id)
				w <- msg
				return nil
			}
		}
	}
	c.queue = append(c.queue, msg)
	select {
	case c.ready <- struct{}{}:
	default:
	}
	return nil
}

// replyID returns the id of a response (a message with no method).
func replyID(msg []byte) (string, bool) {
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(msg, &probe) != nil || probe.Method != nil || len(probe.ID) == 0 {
		return "", false
	}
	return string(probe.ID), true
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

// Call sends a request and waits for its reply. A notification returns
// (nil, nil) at once.
func (c *Conn) Call(msg []byte) ([]byte, error) {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &probe) != nil || len(probe.ID) == 0 || string(probe.ID) == "null" {
		return nil, c.Send(msg) // malformed or a notification: any reply goes to Recv
	}
	id := string(probe.ID)
	if limit := c.rt.MaxMessage(); len(msg) > limit {
		err := rpc.NewTooLargeError(msg, limit)
		return rpc.EncodeResponse(rpc.ID(probe.ID), nil, &rpc.Error{Code: rpc.CodeMessageTooLarge, Message: err.Error()})
	}
	w := make(chan []byte, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if c.waiters[id] != nil {
		c.mu.Unlock()
		return rpc.EncodeResponse(rpc.ID(probe.ID), nil, rpc.Errorf(rpc.CodeInvalidRequest, "invalid request: a call with id %s is already waiting", id))
	}
	c.waiters[id] = w
	c.mu.Unlock()
	if err := c.Send(msg); err != nil {
		return nil, err
	}
	reply, ok := <-w
	if !ok {
		return rpc.EncodeResponse(rpc.ID(probe.ID), nil, rpc.Errorf(rpc.CodeShutDown, "runtime closed before answering"))
	}
	return reply, nil
}

// Close shuts the runtime down (killing every process it started) and wakes
// every waiter. It is safe to call more than once.
func (c *Conn) Close() error {
	err := c.rt.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	for id, w := range c.waiters {
		close(w)
		delete(c.waiters, id)
	}
	close(c.done)
	if err != nil {
		return fmt.Errorf("close runtime: %w", err)
	}
	return nil
}
