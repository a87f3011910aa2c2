package bash

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// task is a command started with run_in_background. Its stdout and stderr
// share one pipe, so the log keeps the order they were written in.
type task struct {
	id      string
	owner   string // Key of the session that started it; "" means anyone may use it
	command string
	g       *group
	log     *output.Log // full output; nil when it could not be created
	logPath string
	logErr  error

	mem *taskMemory

	mu       sync.Mutex
	unread   ring  // newest output not yet returned by bash_output
	held     int64 // memory of unread, as charged to mem
	pending  int64 // bytes written since the last read, kept or not
	total    int64 // bytes written in all
	moved    bool  // unread output is read back from the log instead of kept in memory
	dropped  bool  // unread output was dropped for memory, with no log to read it from
	finished bool  // reaped and drained: pending holds all there will be
	finishN  int64 // order of finishing, for choosing what leaves memory first
	exit     exitInfo
	cause    stopCause
	released bool // the owner's session closed; output is dropped
}

// spawn starts a background task and returns at once.
func (e *executor) spawn(call *tools.Call, command, dir string) (*tools.Result, error) {
	e.mu.Lock()
	switch {
	case e.closed:
		e.mu.Unlock()
		return startError(ErrClosed), nil
	case e.running >= e.set.maxTasks:
		e.mu.Unlock()
		return tools.Errorf("too many background tasks are running (the limit is %d); stop one with %s or wait for one to finish", e.set.maxTasks, e.set.killName()), nil
	}
	e.running++ // reserve the slot before starting, so the limit holds under races
	e.mu.Unlock()

	r, w, err := pipe()
	if err != nil {
		e.taskDone()
		return nil, fmt.Errorf("bash: create output pipe: %w", err)
	}
	g, err := e.start(command, dir, call.Session.Environ(os.Environ()), w, w, call.Session.Key, call.Session.Sandbox)
	_ = w.Close() // best effort: the child holds its own copy
	if err != nil {
		_ = r.Close() // best effort
		e.taskDone()
		return startError(err), nil
	}

	e.mu.Lock()
	e.seq++
	t := &task{
		id:      fmt.Sprintf("bash-%d", e.seq),
		owner:   call.Session.Key,
		command: command,
		g:       g,
		unread:  ring{max: e.set.maxLogBytes},
		mem:     &e.mem,
	}
	e.mu.Unlock()
	// The pipe holds the first output while the log is created; the task is
	// published only once complete.
	t.log, t.logErr = output.CreateLog(e.set.spillDir, t.id)
	if t.log != nil {
		t.logPath = t.log.Name()
	}
	e.mu.Lock()
	e.tasks[t.id] = t
	e.mu.Unlock()
	go e.supervise(t, r)

	text := fmt.Sprintf("Started background task %s. Read its new output with %s and stop it with %s.", t.id, e.set.outputName(), e.set.killName())
	s := map[string]any{"taskId": t.id, "status": "running"}
	if t.logPath != "" {
		text += "\nFull output log: " + t.logPath
		s["spillPath"] = t.logPath
	}
	return &tools.Result{Text: text, Structured: s}, nil
}

func (e *executor) taskDone() {
	e.mu.Lock()
	e.running--
	e.mu.Unlock()
}

// supervise waits for the task to end, drains its output, records how it
// ended and tells the owner.
func (e *executor) supervise(t *task, r *os.File) {
	read := make(chan struct{})
	go func() { defer close(read); e.pump(t, r) }()
	ps, _ := t.g.wait()
	_ = r.SetReadDeadline(time.Now().Add(drainWait)) // best effort, as in run
	<-read
	_ = r.Close() // best effort
	var logErr error
	if t.log != nil {
		t.mu.Lock() // moveOut reads the log's state
		logErr = t.log.Finish()
		t.mu.Unlock()
	}
	x := exitInfo{code: -1}
	if ps != nil {
		x = exitOf(ps)
	}
	cause, _ := t.g.outcome()

	t.mu.Lock()
	t.finished, t.exit, t.cause = true, x, cause
	t.finishN = e.mem.finished()
	if t.logErr == nil {
		t.logErr = logErr
	}
	t.mu.Unlock()
	e.taskDone()
	e.forget(t.g)

	// A task the tool stopped was stopped on someone's request, who knows.
	if t.owner != "" && cause == causeNone {
		_, line := taskStatus(true, x, cause)
		e.host.Notice(t.owner, fmt.Sprintf("Background task %s finished (%s): %s", t.id, line, oneLine(t.command, 80)))
	}
}

// pump moves the task's output into its log and, while memory allows, into
// its buffer of unread output.
func (e *executor) pump(t *task, r *os.File) {
	buf := e.bufs.get()
	defer e.bufs.put(buf)
	for {
		n, err := r.Read(*buf)
		if n > 0 {
			p := (*buf)[:n]
			t.mu.Lock()
			if t.log != nil {
				// First the log: a read of output that left memory
				// finds every byte counted below in it.
				t.log.Append(p)
			}
			if !t.released && !t.moved && !t.dropped {
				t.unread.write(p)
			}
			t.pending += int64(n)
			t.total += int64(n)
			grew := t.unread.size() - t.held
			t.held += grew
			t.mu.Unlock()
			if grew > 0 {
				e.charge(grew)
			}
		}
		if err != nil {
			return
		}
	}
}

// release drops the task's unread output; its ownership record stays.
func (t *task) release() {
	t.mu.Lock()
	t.released = true
	t.unread = ring{}
	freed := t.held
	t.held = 0
	t.mu.Unlock()
	t.mem.free(freed)
}

// taskStatus returns the status word for Structured and the status line.
func taskStatus(finished bool, x exitInfo, cause stopCause) (string, string) {
	switch {
	case !finished:
		return "running", "running"
	case cause == causeKill || cause == causeSession || cause == causeShutdown:
		return "killed", "killed"
	case x.signal != "":
		return "killed", "killed by signal: " + x.signal
	}
	return "completed", fmt.Sprintf("completed, exit code: %d", x.code)
}

// lookup finds the task a bash_output or bash_kill call names, if the caller
// may use it.
func (e *executor) lookup(call *tools.Call) (*task, *tools.Result) {
	var p TaskParams
	if err := tools.Decode(call.Arguments, &p); err != nil {
		return nil, tools.Errorf("%v", err)
	}
	if p.TaskID == "" {
		return nil, tools.Errorf(`invalid arguments: "task_id" is required`)
	}
	e.mu.Lock()
	t := e.tasks[p.TaskID]
	e.mu.Unlock()
	if t == nil {
		return nil, tools.Errorf("task %q not found", p.TaskID)
	}
	if t.owner != "" && t.owner != call.Session.Key {
		return nil, tools.Errorf("task %s belongs to another session", t.id)
	}
	return t, nil
}

// output returns what the task printed since the last read, then its status.
func (e *executor) output(call *tools.Call) *tools.Result {
	t, res := e.lookup(call)
	if res != nil {
		return res
	}
	t.mu.Lock()
	var data []byte
	var readErr error
	switch {
	case t.moved:
		// Only the part that can be shown is read back.
		n := min(t.pending, int64(4*e.set.maxChars+4))
		data, readErr = readLog(t.logPath, t.total-n, n)
	case !t.dropped:
		data = t.unread.bytes()
		t.unread.reset()
	}
	lost := t.pending - int64(len(data))
	t.pending = 0
	freed := int64(0)
	if !t.finished {
		// Hold back a character whose last bytes have not arrived yet.
		if k := incompleteSuffix(data); k > 0 {
			if !t.moved && !t.dropped {
				t.unread.write(data[len(data)-k:])
			}
			t.pending = int64(k)
			data = data[:len(data)-k]
		}
	} else {
		t.unread = ring{} // all read: free the buffer
		freed, t.held = t.held, 0
	}
	dropped := t.dropped
	t.dropped = false // what arrives from now on is kept again, while memory allows
	finished, x, cause, logErr := t.finished, t.exit, t.cause, t.logErr
	t.mu.Unlock()
	t.mem.free(freed)

	kept := tailChars(data, int64(e.set.maxChars))
	omitted := lost + int64(len(data)-len(kept))
	word, line := taskStatus(finished, x, cause)

	var b strings.Builder
	if omitted > 0 {
		where := "full output: " + t.logPath
		switch {
		case t.logPath == "" || logErr != nil:
			where = fmt.Sprintf("the full output log could not be written: %v", logErr)
			if dropped {
				where += "; unread output of background tasks outgrew the memory set aside for it, so this task's was dropped"
			}
		case readErr != nil:
			where = fmt.Sprintf("the log %s, which holds the output, could not be read: %v", t.logPath, readErr)
		}
		fmt.Fprintf(&b, "[... %d bytes of earlier output not shown; %s]\n", omitted, where)
	}
	b.Write(kept)
	if len(kept) == 0 && omitted == 0 {
		b.WriteString("[no new output]")
	}
	newline(&b)
	b.WriteString("[status: " + line + "]")

	s := map[string]any{"taskId": t.id, "status": word, "truncated": omitted > 0}
	if omitted > 0 {
		s["omittedBytes"] = omitted
	}
	if t.logPath != "" {
		s["spillPath"] = t.logPath
	}
	if finished {
		if x.signal != "" {
			s["signal"] = x.signal
		} else {
			s["exitCode"] = x.code
		}
	}
	return &tools.Result{Text: strings.ToValidUTF8(b.String(), "\uFFFD"), Structured: s, Raw: string(kept)}
}

// kill stops a task's group: SIGTERM, then SIGKILL after killGrace. A
// call cancelled while it waits for the task to die returns ctx's error.
func (e *executor) kill(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	t, res := e.lookup(call)
	if res != nil {
		return res, nil
	}
	stopped := t.g.stop(causeKill, killGrace)
	wait := time.NewTimer(killGrace + drainWait + time.Second)
	defer wait.Stop()
	select {
	case <-t.g.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-wait.C:
		return &tools.Result{
			Text:       fmt.Sprintf("Sent SIGTERM and SIGKILL to background task %s, but it has not exited yet.\n[status: running]", t.id),
			Structured: map[string]any{"taskId": t.id, "status": "running", "killed": false},
		}, nil
	}
	t.mu.Lock()
	word, line := taskStatus(t.finished, t.exit, t.cause)
	unread := t.pending > 0
	t.mu.Unlock()
	s := map[string]any{"taskId": t.id, "status": word, "killed": stopped}
	if !stopped {
		return &tools.Result{Text: fmt.Sprintf("Background task %s had already finished (%s); nothing was stopped.", t.id, line), Structured: s}, nil
	}
	text := fmt.Sprintf("Stopped background task %s.", t.id)
	if unread {
		text += " Output it printed before the stop can still be read with " + e.set.outputName() + "."
	}
	return &tools.Result{Text: text + "\n[status: " + line + "]", Structured: s}, nil
}
