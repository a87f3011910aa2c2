//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// workers are the OS threads a policy's file operations run on (see Run):
// each is a goroutine locked to its thread, which it restricted with the
// policy's Landlock rules and never unlocks, so the thread dies with the
// goroutine and no other goroutine ever runs on it. Idle workers wait for
// work for idleWait, then end; there are as many as calls ran at once.
type workers struct {
	ruleset *os.File
	jobs    chan *job
	quit    chan struct{}

	mu     sync.Mutex
	closed bool
	live   sync.WaitGroup
}

type job struct {
	fn   func()
	done chan outcome
}

type outcome struct {
	err      error
	panicked bool
	value    any
	stack    []byte
}

// idleWait is how long a confined thread waits for more work: long enough
// for a model's next edit, short enough that idle sessions hold no threads.
const idleWait = 10 * time.Second

func newWorkers(p *Policy) (*workers, error) {
	// The workers only touch files: no scopes, so the Go runtime on their
	// threads signals the process's other threads as it always does.
	rs, err := buildRuleset(p.abi, 0, p.grants(nil))
	if err != nil {
		return nil, err
	}
	return &workers{ruleset: rs, jobs: make(chan *job), quit: make(chan struct{})}, nil
}

// Run runs fn where the session's file tools act: for a policy Landlock
// enforces, on an OS thread restricted with the policy's rules, so the
// kernel refuses a write outside them whatever path fn takes (a symbolic
// link swapped in, /proc/self/root); otherwise on the calling goroutine
// (path checks are then all, see PathPolicy). fn must do its file work on
// the goroutine it is called on: a goroutine it starts runs elsewhere. A
// panic in fn is raised again in the caller.
func (p *Policy) Run(fn func()) error {
	if !p.Restricted() || !p.landlock {
		fn()
		return nil
	}
	p.filesOnce.Do(func() { p.files, p.filesErr = newWorkers(p) })
	if p.filesErr != nil {
		return p.filesErr
	}
	return p.files.run(fn)
}

func (w *workers) run(fn func()) error {
	j := &job{fn: fn, done: make(chan outcome, 1)}
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return errClosed
	}
	select {
	case w.jobs <- j: // an idle worker took it
	default:
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return errClosed
		}
		w.live.Add(1)
		w.mu.Unlock()
		go w.loop(j)
	}
	o := <-j.done
	if o.panicked {
		panic(fmt.Sprintf("%v\n\n[on a sandboxed file thread]\n%s", o.value, o.stack))
	}
	return o.err
}

func (w *workers) loop(first *job) {
	defer w.live.Done()
	runtime.LockOSThread() // never unlocked: the restricted thread ends with this goroutine
	if err := restrictThread(w.ruleset); err != nil {
		first.done <- outcome{err: fmt.Errorf("%w; the file operation did not run", err)}
		return
	}
	do(first)
	idle := time.NewTimer(idleWait)
	defer idle.Stop()
	for {
		select {
		case j := <-w.jobs:
			do(j)
			idle.Reset(idleWait)
		case <-idle.C:
			return
		case <-w.quit:
			return
		}
	}
}

func do(j *job) {
	defer func() {
		if v := recover(); v != nil {
			j.done <- outcome{panicked: true, value: v, stack: debug.Stack()}
		}
	}()
	j.fn()
	j.done <- outcome{}
}

// close ends the idle workers; busy ones end after their job.
func (w *workers) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	w.mu.Unlock()
	close(w.quit)
	go func() {
		w.live.Wait()
		_ = w.ruleset.Close() // best effort: every worker has restricted itself or ended
	}()
}
