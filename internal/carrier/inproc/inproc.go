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
//
// Start and Wait split Call in two, so a caller can wait in slices (and
// stay interruptible) without a reader thread in between: Start delivers a
// request and returns a ticket; Wait returns that request's reply once it
// is there, with the number of messages queued for Recv before it, so the
// caller can tell whether a notice sent ahead of the reply is still on its
// way through Recv (issue 16).
//
// Call and Start run a call to a quick tool (tools.Quick: the file editor,
// which waits for no process) themselves, on the caller's goroutine, after
// letting other senders go on: Start then returns with the reply already
// there. A call to a persistent shell that is up starts there too (the
// command is handed to the shell) and ends on the goroutine that reads
// the shell's end frame, which sends the reply to the ticket
// (rpc.Answer.Begin). Every other job runs on the runtime's workers while
// the caller waits in slices.
//
// A caller that is a thread of its own (the C ABI's) waits best in the
// kernel: see ParkWaitersInKernel.
package inproc

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
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
	queued uint64 // messages ever queued for Recv

	tickets    map[int64]*ticket // requests started with Start, not yet collected
	nextTicket int64

	parkInKernel bool // Wait sleeps on its ticket's futex; set before use by ParkWaitersInKernel

	readiness *readiness // the ready descriptor (ReadyFD), nil until asked for
}

// ticket is where the reply of a request sent with Start waits.
type ticket struct {
	reply  chan []byte // buffered: the runtime replies at most once
	queued uint64      // Conn.queued when the reply came; read after a receive from reply

	// settled becomes 1 once reply holds the reply or the connection is
	// closed; a Wait parked in the kernel sleeps on it (a futex word).
	settled atomic.Uint32
}

// settle wakes the Waits parked on t's word.
func (t *ticket) settle() {
	t.settled.Store(1)
	wakeParked(&t.settled)
}

// ErrUnknownTicket is returned by Wait for a ticket that Start did not
// give, or whose reply was already collected or forgotten.
var ErrUnknownTicket = errors.New("unknown ticket")

// OpenOptions returns a connection to a new runtime made from opts;
// opts.Send is replaced by the connection's own. (On Linux opts.SpawnHelper
// must name the spawn helper, or the runtime's first request fails.)
func OpenOptions(opts core.Options) *Conn {
	c := &Conn{ready: make(chan struct{}, 1), done: make(chan struct{}), tickets: map[int64]*ticket{}}
	opts.Send = c.enqueue
	c.rt = core.New(opts)
	return c
}

// ParkWaitersInKernel makes Wait and StartWait sleep in the kernel, on a
// futex word of the request's own, until the reply comes (on Linux; a
// no-op elsewhere). Call it before the connection is used, when every
// caller that waits is a thread of its own: the C ABI's callers are C
// threads. Such a caller's goroutine is locked to its thread, so waiting
// in the Go scheduler hands the thread's P to another thread as it parks,
// and the thread that makes it runnable must hand a P back and wake it;
// sleeping in the kernel leaves the P to be taken back when needed and
// takes one futex wake (issue 16: per persistent `true` through Python,
// the host's futex calls 9.5 → 4.3, its context switches 10 → 6, its CPU
// about a fifth less). A goroutine that waits is better off in the
// scheduler, which runs it on the thread that readies it.
func (c *Conn) ParkWaitersInKernel() { c.parkInKernel = canParkInKernel }

// enqueue takes every outgoing message that is not a Call's own reply.
func (c *Conn) enqueue(msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.queue = append(c.queue, msg)
	c.queued++
	if c.readiness != nil {
		c.readiness.set()
	}
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
	msgs, err := c.RecvMany(timeout, 1)
	if len(msgs) == 0 {
		return nil, err
	}
	return msgs[0], err
}

// RecvMany is Recv for a reader that takes what has piled up in one go:
// it waits like Recv for the first message, then returns it with those
// queued behind it, at most limit in all (at least one). A reader that wakes
// once for a burst of replies saves a wake-up and a crossing into the
// library per message (issue 16).
func (c *Conn) RecvMany(timeout time.Duration, limit int) ([][]byte, error) {
	limit = min(max(limit, 1), 1<<16)
	var timer <-chan time.Time
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			n := min(len(c.queue), limit)
			msgs := make([][]byte, n)
			copy(msgs, c.queue[:n])
			clear(c.queue[:n])
			c.queue = c.queue[n:]
			if len(c.queue) > 0 {
				select {
				case c.ready <- struct{}{}:
				default:
				}
			} else if c.readiness != nil {
				c.readiness.reset()
			}
			c.mu.Unlock()
			return msgs, nil
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
	replies, run := c.rt.DeliverInline(msg, func(reply []byte) error {
		select {
		case w <- reply:
		default: // cannot happen: one reply per request
		}
		return nil
	})
	c.sendMu.Unlock()
	if run != nil {
		run() // a quick tool's call, on this goroutine: the reply is in w when it returns
	}
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

// Start delivers a request whose reply is kept for Wait (never queued for
// Recv) and returns its ticket. A notification returns 0: no reply comes.
func (c *Conn) Start(msg []byte) (int64, error) {
	t := &ticket{reply: make(chan []byte, 1)}
	c.sendMu.Lock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.sendMu.Unlock()
		return 0, ErrClosed
	}
	c.nextTicket++
	id := c.nextTicket
	c.tickets[id] = t
	c.mu.Unlock()
	replies, run := c.rt.DeliverInline(msg, func(reply []byte) error {
		c.mu.Lock()
		t.queued = c.queued
		c.mu.Unlock()
		select {
		case t.reply <- reply:
		default: // cannot happen: one reply per request
		}
		if c.parkInKernel {
			t.settle()
		}
		return nil
	})
	c.sendMu.Unlock()
	if run != nil {
		// A quick tool's call runs here, on the caller's goroutine (for
		// the C ABI the caller's own thread), and Wait then finds its
		// reply at once: no worker is woken and nobody waits to be woken
		// by one. A persistent call's first half runs here likewise, and
		// its reply comes from the thread that sees the command end. Either
		// stays cancellable from other threads through its context, and a
		// session close waits for it like any call.
		run()
	}
	if !replies {
		c.Forget(id)
		return 0, nil
	}
	return id, nil
}

// StartWait is Start followed by Wait on its ticket, for a caller that
// crosses into the library once per call (the C ABI's
// shellport_start_wait, issue 16): a quick tool's reply is there when Start
// returns, so the common call never waits here. It returns the ticket (0
// for a notification), and the reply with its queued count when it came
// within timeout; with a nil reply and a ticket > 0 the caller goes on with
// Wait or Forget.
func (c *Conn) StartWait(msg []byte, timeout time.Duration) (int64, []byte, uint64, error) {
	id, err := c.Start(msg)
	if err != nil || id == 0 {
		return id, nil, 0, err
	}
	reply, queued, err := c.Wait(id, timeout)
	return id, reply, queued, err
}

// Wait returns the reply to the request of ticket id and how many messages
// had been queued for Recv when it came, waiting up to timeout. It returns
// a nil reply on timeout, ErrClosed once the connection is closed, and
// ErrUnknownTicket for a ticket already collected or forgotten.
func (c *Conn) Wait(id int64, timeout time.Duration) ([]byte, uint64, error) {
	c.mu.Lock()
	t := c.tickets[id]
	c.mu.Unlock()
	if t == nil {
		return nil, 0, ErrUnknownTicket
	}
	select {
	case reply := <-t.reply:
		c.Forget(id)
		return reply, t.queued, nil
	default:
	}
	if timeout <= 0 {
		return nil, 0, nil
	}
	if c.parkInKernel && !parkUntilSettled(t, timeout) {
		return nil, 0, nil
	}
	// Parked, the reply is now there or the connection closed, so the
	// select below returns at once (unless a second Wait on the same
	// ticket took the reply: that one then waits out its timeout, as it
	// would have without parking).
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case reply := <-t.reply:
		c.Forget(id)
		return reply, t.queued, nil
	case <-c.done:
		select {
		case reply := <-t.reply: // answered while closing
			c.Forget(id)
			return reply, t.queued, nil
		default:
		}
		c.Forget(id)
		return nil, 0, ErrClosed
	case <-timer.C:
		return nil, 0, nil
	}
}

// parkUntilSettled sleeps in the kernel until t is settled (true) or
// timeout passes (false).
func parkUntilSettled(t *ticket, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for t.settled.Load() == 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		park(&t.settled, left)
	}
	return true
}

// Forget drops a ticket whose reply nobody will collect (the caller gave
// up); the reply, when it comes, is discarded.
func (c *Conn) Forget(id int64) {
	c.mu.Lock()
	delete(c.tickets, id)
	c.mu.Unlock()
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
	if c.parkInKernel {
		for _, t := range c.tickets {
			t.settle()
		}
	}
	if c.readiness != nil {
		// Readable for good, then closed: a caller watching a duplicate
		// wakes, and RecvMany tells it the connection is closed.
		c.readiness.set()
		c.readiness.release()
		c.readiness = nil // nothing touches the descriptor after this
	}
	if err != nil {
		return fmt.Errorf("close runtime: %w", err)
	}
	return nil
}
