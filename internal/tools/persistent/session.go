package persistent

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// session owns one shell. Its calls run one at a time in arrival order.
type session struct {
	key   string // tools.Session.Key
	queue fifoLock

	mu     sync.Mutex
	sh     *shell     // touched by the queue holder, and by close
	lost   *lostShell // a reset the model has not been told about yet
	closed bool
}

// run runs one command in the session's shell, starting a fresh shell when
// there is none or the last one has died. Every reset of the shell is told
// in the result it happens in or, when that result never reaches the model
// (a cancelled call), in the next one.
func (s *session) run(ctx context.Context, t *Tool, call *tools.Call, command string) (*tools.Result, error) {
	if err := s.queue.lock(ctx); err != nil {
		return nil, err
	}
	defer s.queue.unlock()

	s.mu.Lock()
	sh, lost, closed := s.sh, s.lost, s.closed
	s.mu.Unlock()
	if closed {
		return nil, ErrSessionClosed
	}
	if sh != nil && sh.dead() {
		// Killed between calls (a background job ran kill -9 $$, the OOM
		// killer), or its loop stopped after reporting: say so, since the
		// state the model expects is gone.
		sh.mu.Lock()
		ended := sh.loopEnded
		sh.mu.Unlock()
		exit := sh.status()
		lost = &lostShell{exit: exit, loopEnded: ended && loopExit(exit)}
		s.drop(sh)
		sh = nil
	}
	if sh == nil {
		var err error
		env := shellEnv(call.Session.Base(os.Environ()), call.Session)
		if sh, err = startShell(ctx, t.shellCfg, call.Session.Cwd, env, call.Session.Sandbox); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.remember(lost)
			return startFailed(err, lost, call.Session.Cwd), nil
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			sh.close()
			return nil, ErrSessionClosed
		}
		s.sh = sh
		s.mu.Unlock()
	}
	s.remember(nil)

	o, err := sh.exec(ctx, command, t.timeout, call.Observe)
	return s.after(sh, o, err, lost, call, t)
}

// after is the end of a call that ran in sh with outcome o (or err), lost
// being the reset it must report; called while the call holds the queue.
func (s *session) after(sh *shell, o outcome, err error, lost *lostShell, call *tools.Call, t *Tool) (*tools.Result, error) {
	if err != nil || o.reset() {
		s.drop(sh)
	}
	if err != nil {
		// The shell was reset and the caller gets no result: the next one
		// must say so.
		s.remember(&lostShell{cancelled: true})
		return nil, err
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		o.out.Remove()
		return nil, ErrSessionClosed
	}
	return render(o, lost, call.Session.Cwd, t.timeout), nil
}

// StartCall is Call split in two (issue 16): when the session's shell is
// up and no call of the session holds it, it sends the command on this
// goroutine and reports true; the goroutine that sees the call end (the
// terminal reader at the end frame, or one that waits as Call does when
// anything else happens first) then calls resume with the function that
// returns the call's result. It reports false, having done nothing, when
// the call would have to wait first (no shell yet, a dead one, another
// call running), and for arguments Call words an error for.
func (t *Tool) StartCall(ctx context.Context, call *tools.Call, resume func(finish func() (*tools.Result, error))) bool {
	command, problem := commandOf(call)
	if problem != nil {
		return false
	}
	t.mu.Lock()
	s, closed := t.sessions[call.Session.Key], t.closed
	t.mu.Unlock()
	if s == nil || closed {
		return false
	}
	return s.start(ctx, t, call, command, resume)
}

// start is run's first half for a shell that is up (see StartCall).
func (s *session) start(ctx context.Context, t *Tool, call *tools.Call, command string, resume func(func() (*tools.Result, error))) bool {
	if !s.queue.tryLock() {
		return false
	}
	s.mu.Lock()
	sh, lost, closed := s.sh, s.lost, s.closed
	s.mu.Unlock()
	if closed || sh == nil {
		s.queue.unlock()
		return false
	}
	s.remember(nil) // before the call can end, which may remember a reset
	started := sh.begin(ctx, command, t.timeout, call.Observe, func(o outcome, err error) {
		resume(func() (*tools.Result, error) {
			defer s.queue.unlock()
			return s.after(sh, o, err, lost, call, t)
		})
	})
	if !started {
		s.remember(lost)
		s.queue.unlock()
	}
	return started
}

// remember records a reset the next result must report (nil: none).
func (s *session) remember(l *lostShell) {
	s.mu.Lock()
	s.lost = l
	s.mu.Unlock()
}

// startFailed is the result of a call whose shell could not be started,
// for example because the temporary directory's file system is full.
func startFailed(err error, lost *lostShell, cwd string) *tools.Result {
	text := fmt.Sprintf("could not start a shell for this command, so it did not run: %v", err)
	if lost != nil {
		text = lost.text(cwd) + "\n" + text
	}
	return &tools.Result{Text: text, IsError: true, Structured: output.Result{ShellReset: lost != nil}.Meta()}
}

// drop forgets sh and kills what is left of it.
func (s *session) drop(sh *shell) {
	s.mu.Lock()
	if s.sh == sh {
		s.sh = nil
	}
	s.mu.Unlock()
	sh.close()
}

func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	sh := s.sh
	s.sh = nil
	s.mu.Unlock()
	if sh != nil {
		sh.close()
	}
}

// fifoLock is a mutex that hands itself to waiters in arrival order and
// lets a waiter give up when its context ends. (sync.Mutex promises no
// order.)
type fifoLock struct {
	mu      sync.Mutex
	held    bool
	waiters []chan struct{}
}

func (l *fifoLock) lock(ctx context.Context) error {
	l.mu.Lock()
	if !l.held {
		l.held = true
		l.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		for i, w := range l.waiters {
			if w == ch {
				l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
				l.mu.Unlock()
				return ctx.Err()
			}
		}
		l.mu.Unlock()
		// The lock was handed over as ctx ended: pass it on.
		l.unlock()
		return ctx.Err()
	}
}

// tryLock takes the lock if it is free.
func (l *fifoLock) tryLock() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held {
		return false
	}
	l.held = true
	return true
}

func (l *fifoLock) unlock() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.waiters) == 0 {
		l.held = false
		return
	}
	next := l.waiters[0]
	l.waiters = l.waiters[1:]
	close(next)
}

// queued is the number of callers waiting (tests).
func (l *fifoLock) queued() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waiters)
}
