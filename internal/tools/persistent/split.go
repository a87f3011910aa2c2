package persistent

import (
	"context"
	"time"
)

// A split call (issue 16) is exec in two halves with no goroutine waiting
// in between. begin, on the goroutine that delivered the call (for the C
// ABI the caller's own thread), sends the command and returns; when the
// end frame is the only thing that happened, the terminal reader that
// accepts it finishes the call (finishSplit) and hands the outcome on, so
// the reader's thread builds the result and sends the reply. Anything
// else — the call's context ending, the shell's death, the call running
// past drainDelay (when the return FIFO must be drained and the shell
// checked for a lost command) or its timeout, a frame whose report was
// taken — hands the call to a goroutine that waits for it exactly as exec
// does (awaitSplit), so every slow path is exec's own.
//
// Who owns a call is decided by one compare-and-swap on callState.split:
// the frame's reader, a waiting goroutine, or, while begin still sends the
// command, begin itself once it is done sending.
const (
	splitNone             int32 = iota // exec's call: its own goroutine waits
	splitStarting                      // begin is sending it
	splitStartingAwait                 // begin is sending it, and a goroutine must wait for it
	splitStartingFinished              // begin is sending it, and its frame came
	splitPending                       // sent; nobody waits
	splitAwaited                       // a goroutine waits for it, as exec does
	splitFinishing                     // its frame came: the reader finishes it
)

// begin starts command as a split call and reports true, having arranged
// for done to be called exactly once, from whichever goroutine ends the
// call (possibly this one, before begin returns), with what exec would
// have returned. It reports false, having done nothing, when the call
// cannot start without waiting: the shell has not reported ready yet, or
// is dead, or ctx has ended.
func (s *shell) begin(ctx context.Context, command string, timeout time.Duration, observe func([]byte), done func(outcome, error)) bool {
	if !isClosed(s.ready) || s.dead() || ctx.Err() != nil {
		return false
	}
	start := time.Now()
	c := &callState{finished: make(chan struct{}), ctx: ctx, exited: s.proc.Done(), start: start, deadline: start.Add(timeout), done: done}
	c.split.Store(splitStarting)
	s.armTimeout(timeout)
	c.stopCtx = context.AfterFunc(ctx, func() { s.promote(c) })
	s.splitCall.Store(c)
	// The first of drainDelay and the timeout hands the call to a
	// waiting goroutine: from then on exec's loop drains the return FIFO,
	// checks for a lost command and stops the command at its timeout.
	s.armPromote(c.promoteAt())
	if o, ok := s.sendCall(c, command, observe); !ok {
		c.split.Store(splitFinishing) // nothing else may take it now
		s.stopSplit(c)
		done(o, nil)
		return true
	}
	if isClosed(c.exited) { // died before the call was there for wakeCall to see
		s.promote(c)
	}
	for {
		switch st := c.split.Load(); st {
		case splitStarting:
			if c.split.CompareAndSwap(st, splitPending) {
				return true
			}
		case splitStartingAwait:
			c.split.Store(splitAwaited)
			go s.awaitSplit(c)
			return true
		case splitStartingFinished:
			c.split.Store(splitFinishing)
			s.finishSplit(c)
			return true
		}
	}
}

// promote hands the split call c to a goroutine that waits for it, unless
// someone owns it already. Safe from any goroutine, with or without s.mu.
func (s *shell) promote(c *callState) {
	for {
		switch st := c.split.Load(); st {
		case splitStarting:
			if c.split.CompareAndSwap(st, splitStartingAwait) {
				return
			}
		case splitPending:
			if c.split.CompareAndSwap(st, splitAwaited) {
				go s.awaitSplit(c)
				return
			}
		default:
			return
		}
	}
}

// promoteAt is when the split call c is handed to a waiting goroutine if
// nothing else has ended or promoted it by then.
func (c *callState) promoteAt() time.Time { return minTime(c.start.Add(drainDelay), c.deadline) }

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// armPromote makes sure the promote timer fires at the latest at at. A
// timer armed for earlier is left as it is: when it fires it arms itself
// again for the call then running. So calls that follow each other re-arm
// it once per drainDelay rather than once per call: arming a timer earlier
// than the Go poller's next deadline interrupts the thread that waits in
// it, a wake-up and a context switch per call (issue 16).
func (s *shell) armPromote(at time.Time) {
	s.promoteMu.Lock()
	defer s.promoteMu.Unlock()
	if s.promoteArmed && !s.promoteFires.After(at) {
		return
	}
	s.promoteArmed, s.promoteFires = true, at
	if s.promoteTimer == nil {
		s.promoteTimer = time.AfterFunc(time.Until(at), s.promoteSplitCall)
		return
	}
	s.promoteTimer.Reset(time.Until(at))
}

// promoteSplitCall is the promote timer's function: it promotes the
// split call running now if its time has come, and arms the timer again
// for it if not.
func (s *shell) promoteSplitCall() {
	s.promoteMu.Lock()
	s.promoteArmed = false // before the load below: a call begun since arms the timer itself
	s.promoteMu.Unlock()
	c := s.splitCall.Load()
	if c == nil {
		return
	}
	if st := c.split.Load(); st != splitStarting && st != splitPending {
		return // owned already
	}
	if at := c.promoteAt(); time.Now().Before(at) {
		s.armPromote(at)
		return
	}
	s.promote(c)
}

// frameEnded is told, with s.mu held, that the call c has ended at a
// frame. A split call nobody owns is then finished by the reader once it
// lets go of s.mu (feedLocked), when it ended cleanly; otherwise (its
// report taken, its context ended) by a waiting goroutine, since the
// shell is reset and a reset waits for the reader.
func (s *shell) frameEnded(c *callState) {
	clean := !c.taken && !c.lost && c.ctx.Err() == nil
	for {
		switch st := c.split.Load(); st {
		case splitStarting:
			next := splitStartingFinished
			if !clean {
				next = splitStartingAwait
			}
			if c.split.CompareAndSwap(st, next) {
				return
			}
		case splitPending:
			if !clean {
				s.promote(c)
				return
			}
			if c.split.CompareAndSwap(st, splitFinishing) {
				s.ended = c
				return
			}
		default:
			return
		}
	}
}

// finishSplit ends the split call c, whose frame came, as exec's wait
// would have, without s.mu held.
func (s *shell) finishSplit(c *callState) {
	s.stopSplit(c)
	if testOnlyAfterFrame != nil {
		testOnlyAfterFrame()
	}
	if c.ctx.Err() != nil {
		// Cancelled since: the shell is reset, which waits for the
		// reader, so not on this goroutine.
		go func() {
			s.cancel(c)
			c.done(outcome{}, c.ctx.Err())
		}()
		return
	}
	s.releaseInbox()
	c.done(outcome{out: c.out, status: c.status, finished: true}, nil)
}

// awaitSplit waits for the split call c as exec does, and hands its
// outcome on.
func (s *shell) awaitSplit(c *callState) {
	w := s.cfg.wakers.get()
	s.mu.Lock()
	c.waker = w
	s.mu.Unlock()
	c.stopCtx() // await watches ctx itself
	o, err := s.await(c)
	s.stopSplit(c)
	c.done(o, err)
}

// stopSplit stops what begin armed for c (the promote timer stays armed
// for the calls to come, see armPromote).
func (s *shell) stopSplit(c *callState) {
	c.stopCtx()
	s.timer.Stop()
	s.splitCall.CompareAndSwap(c, nil) // keeps no finished call's output alive
}
