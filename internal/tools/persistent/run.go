package persistent

import (
	"context"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/pty"
)

// stopGrace is how long a timed-out command gets after each signal of the
// escalation before the next. The shell is reset afterwards anyway; the
// grace lets the command print its last words.
const stopGrace = 500 * time.Millisecond

// escalation is how a timed-out command is stopped: each signal goes to the
// terminal's foreground group, the next one only if the command is still
// running after stopGrace.
func escalation() [3]syscall.Signal {
	return [3]syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}
}

// testOnlyAfterFrame, when set by a test, runs once a call's end frame has
// arrived and before the call checks its context.
var testOnlyAfterFrame func()

// outcome is how one command went.
type outcome struct {
	out      captured
	status   int  // the command's exit status, when finished
	finished bool // the command ran to its end and reported its status
	died     bool // the shell itself ended
	exit     pty.ExitStatus
	timedOut bool
	waiting  bool // timed out while reading the terminal

	// broken: the command finished (status is valid) but the shell ended
	// right after, unable to run its command loop any more.
	broken bool
	// loopEnded: the shell's command loop ended during the command (break
	// outside any loop, or a loop that could no longer run).
	loopEnded bool
	// sendErr: the command could not be handed to the shell.
	sendErr error
	// startFailed: the shell died before its loop ran; the command did not.
	startFailed bool
	// taken: the command finished, but another process read the shell's
	// report of its status out of the return FIFO, or wrote one with the
	// same token ahead of it (see onFrame).
	taken bool
	// lost: the shell was found waiting for a command while the call's
	// had not ended (see checkLost).
	lost bool
}

// reset reports whether the shell is gone after this outcome.
func (o outcome) reset() bool { return o.died || o.timedOut || o.sendErr != nil || o.taken || o.lost }

// maxLostCheck is the longest time between two checks of checkLost while
// a call runs: at most this long after a command was lost on the way, its
// call says so.
const maxLostCheck = time.Second

// checkLost ends the call c when the shell is waiting for its next wake
// byte though c has not ended and no report of it is on its way: another
// process read the control FIFO (taking the wake byte: the command never
// ran) or the return FIFO (taking the report, with a frame whose count a
// command changed, so onFrame could not tell). Waiting would only reach
// the timeout (issue 10). Checked when the call has run drainDelay, then
// at doubling intervals up to maxLostCheck, only while the call waits
// with a waker; never where /proc/PID/syscall is missing. viaInbox: the
// command went through the inbox; one written through the control FIFO
// is read from it as it is written, so the shell waiting there is no sign
// of anything.
func (s *shell) checkLost(c *callState, viaInbox bool) {
	if !viaInbox || !s.waitingForWake() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call != c {
		return
	}
	s.readReports()
	if s.reports.pendingToken() { // the frame is on its way
		return
	}
	c.lost = true
	s.finishCall(c, 0)
}

// exec runs one command. It returns ctx's error, and resets the shell, when
// ctx ends before the result is handed back: a cancelled call must leave no
// state change behind that the caller never saw. observe, when not nil,
// sees the call's clean output as it is produced (a live stream).
func (s *shell) exec(ctx context.Context, command string, timeout time.Duration, observe func([]byte)) (outcome, error) {
	deadline := time.Now().Add(timeout)
	timer := s.armTimeout(timeout)
	defer timer.Stop()
	// The loop uses the control FIFO for itself until its first report, so
	// the first command waits for that report.
	select {
	case <-s.ready:
	case <-s.proc.Done():
		s.terminate(true)
		return outcome{out: s.takeOutput(nil), died: true, exit: s.status(), startFailed: true}, nil
	case <-timer.C:
		s.terminate(true)
		return outcome{out: s.takeOutput(nil), timedOut: true}, nil
	case <-ctx.Done():
		s.terminate(false)
		return outcome{}, ctx.Err()
	}
	c := &callState{finished: make(chan struct{}), waker: s.cfg.wakers.get(), ctx: ctx, exited: s.proc.Done(), start: time.Now(), deadline: deadline}
	if o, ok := s.sendCall(c, command, observe); !ok {
		return o, nil
	}
	return s.await(c)
}

// armTimeout starts the shell's timer for a call of timeout. One timer per
// shell, reset for each call (calls to a shell run one at a time): no
// timer is allocated per call, and a timer nobody waits on costs the
// runtime nothing until someone does.
func (s *shell) armTimeout(timeout time.Duration) *time.Timer {
	if s.timer == nil {
		s.timer = time.NewTimer(timeout)
	} else {
		s.timer.Reset(timeout)
	}
	return s.timer
}

// sendCall makes c the running call and hands the shell its command. When
// the command cannot be sent, the shell is terminated and ok is false,
// with the outcome that says so.
func (s *shell) sendCall(c *callState, command string, observe func([]byte)) (o outcome, ok bool) {
	s.mu.Lock()
	s.call = c
	s.cap.out.Observe(observe) // what arrived since the last call is this call's too
	s.mu.Unlock()
	inboxBefore := s.inboxSize
	if err := s.send(command); err != nil {
		s.mu.Lock()
		s.call = nil
		s.mu.Unlock()
		s.terminate(false)
		s.returnWaker(c)
		return outcome{sendErr: err}, false
	}
	c.viaInbox = s.inboxSize != inboxBefore
	return outcome{}, true
}

// await waits for the end of the call c, sent, and returns how it went.
func (s *shell) await(c *callState) (outcome, error) {
	ctx, timer := c.ctx, s.timer
	defer s.stopDrain()
	if w := c.waker; w != nil {
		// Parked in the poller until one of the cases below is ready (see
		// waker); the select then decides as it would have alone. The
		// first wait ends when the return FIFO is due to be drained (see
		// drainDelay): the waker's own deadline, so a short call sets no
		// timer more than before. Then the call's shell is checked now
		// and then until its deadline (see checkLost).
		stop := context.AfterFunc(ctx, w.wake)
		for next, every := c.start.Add(drainDelay), drainDelay; ; {
			if !next.Before(c.deadline) {
				w.wait(c.deadline, c)
				break
			}
			if w.wait(next, c); c.Holds() {
				break
			}
			// The call has run past drainDelay: the return FIFO is drained
			// from now on, and the shell is checked, ever less often, for
			// a command lost on the way (see checkLost).
			s.startDrain()
			s.checkLost(c, c.viaInbox)
			every = min(2*every, maxLostCheck)
			next = time.Now().Add(every)
		}
		stop()
		s.returnWaker(c)
	} else {
		s.armDrain()
	}
	select {
	case <-c.finished:
		if testOnlyAfterFrame != nil {
			testOnlyAfterFrame()
		}
		if ctx.Err() != nil {
			s.cancel(c)
			return outcome{}, ctx.Err()
		}
		if c.taken || c.lost {
			s.terminate(false)
			return outcome{out: c.out, taken: c.taken, lost: c.lost}, nil
		}
		s.releaseInbox()
		return outcome{out: c.out, status: c.status, finished: true}, nil
	case <-s.proc.Done():
		return s.afterDeath(c), nil
	case <-timer.C:
		return s.afterTimeout(ctx, c)
	case <-ctx.Done():
		s.cancel(c)
		return outcome{}, ctx.Err()
	}
}

// returnWaker takes the call's waker back to the pool. A signal that
// still reaches it only makes its next call check once more.
func (s *shell) returnWaker(c *callState) {
	s.mu.Lock()
	w := c.waker
	c.waker = nil
	s.mu.Unlock()
	if w != nil {
		s.cfg.wakers.put(w)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// afterDeath collects what the shell printed before it died, and ends the
// rest of its session. The shell's last reports tell a command that ended
// the shell (exit, set -e, a signal) from one that finished but left the
// shell unable to go on.
func (s *shell) afterDeath(c *callState) outcome {
	s.terminate(true)
	select {
	case <-c.finished: // the command ended just before the shell did
		if c.taken || c.lost {
			return outcome{out: c.out, taken: c.taken, lost: c.lost}
		}
		return outcome{out: c.out, status: c.status, finished: true}
	default:
	}
	o := outcome{out: s.takeOutput(c), died: true, exit: s.status()}
	if !loopExit(o.exit) {
		// The kernel's word is the truth: what the return FIFO holds was
		// written by the driver or by the command, which may have written
		// a record and then killed its shell (issue 10).
		return o
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if status, ok := s.reports.finishedStatus(); ok {
		o.broken, o.status = true, status
	} else if s.loopEnded {
		o.loopEnded = true
	}
	return o
}

// loopExit reports whether a shell ended the way its command loop ends
// it: a normal exit with loopEndedExit, or with 127 when a command
// disabled exit (the loop's last word is then "command not found"). Only
// then are the shell's last reports about the loop believed; a shell
// killed by a signal or exiting with any other code ended for that reason,
// whatever the return FIFO says.
func loopExit(st pty.ExitStatus) bool {
	return st.Signal == 0 && st.Known() && (st.Code == loopEndedExit || st.Code == exitDisabledExit)
}

// exitDisabledExit is bash's status for a command it cannot find: what the
// loop's final exit gives when a command ran enable -n exit.
const exitDisabledExit = 127

// afterTimeout stops the command (SIGINT, SIGTERM, SIGKILL to the
// foreground group), then the shell, and returns the output so far.
func (s *shell) afterTimeout(ctx context.Context, c *callState) (outcome, error) {
	waiting := s.proc.WaitingForInput()
stop:
	for _, sig := range escalation() {
		_ = s.proc.SignalForeground(sig) // Best effort: the group may be gone.
		t := time.NewTimer(stopGrace)
		select {
		case <-c.finished:
		case <-s.proc.Done():
		case <-ctx.Done():
			t.Stop()
			s.cancel(c)
			return outcome{}, ctx.Err()
		case <-t.C:
			continue
		}
		t.Stop()
		break stop
	}
	s.terminate(true)
	return outcome{out: s.takeOutput(c), timedOut: true, waiting: waiting}, nil
}

// cancel resets the shell at once and throws the call's output away.
func (s *shell) cancel(c *callState) {
	s.terminate(false)
	select {
	case <-c.finished:
		c.out.Remove()
	default:
		s.mu.Lock()
		s.scan.flush()
		if s.call == c {
			s.call = nil
			s.cap.discard()
		}
		s.mu.Unlock()
	}
}

// takeOutput returns a torn-down call's output: its finished capture if
// the end frame slipped in while the call was being stopped, else the
// capture in progress. The shell has been terminated, so nothing feeds
// either any more.
func (s *shell) takeOutput(c *callState) captured {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c != nil {
		select {
		case <-c.finished:
			return c.out
		default:
		}
	}
	s.cap.write(s.scan.flush())
	out := s.cap.finish()
	if c != nil && s.call == c {
		s.call = nil
	}
	return out
}
