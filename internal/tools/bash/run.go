package bash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// run executes one foreground command and returns its result. It returns
// once the command's shell has exited and its output is drained, or — after
// a timeout or cancellation — once the group is dead and drained.
func (e *executor) run(ctx context.Context, call *tools.Call, command, dir string, timeoutMs int) (*tools.Result, error) {
	if ctx.Err() != nil {
		return &tools.Result{Text: "[cancelled]", IsError: true, Structured: map[string]any{"cancelled": true}}, nil
	}
	x, err := e.execute(ctx, call, command, dir, timeoutMs, e.set.maxChars)
	if err != nil {
		return nil, err
	}
	if x.startErr != nil {
		return startError(x.startErr), nil
	}
	return e.runResult(x.stdout, x.stderr, x.st), nil
}

// execution is one finished foreground command: its captured streams
// (each keeping at least its last maxChars characters, and all of it in a
// spill file once memory could not) and how it ended.
type execution struct {
	stdout, stderr *capture
	st             Status
	startErr       error // the command could not be started; nothing else is set
}

// execute runs command with `bash -c` in dir under the call's session and
// waits for it: until it exits and its output is drained, or — after the
// timeout or ctx's end — until its group is dead and drained.
func (e *executor) execute(ctx context.Context, call *tools.Call, command, dir string, timeoutMs, maxChars int) (*execution, error) {
	outR, outW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("bash: create stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeFiles(outR, outW)
		return nil, fmt.Errorf("bash: create stderr pipe: %w", err)
	}
	g, err := e.start(command, dir, call.Session.Environ(os.Environ()), outW, errW, call.Session.Key)
	closeFiles(outW, errW) // the child holds its own copies
	if err != nil {
		closeFiles(outR, errR)
		return &execution{startErr: err}, nil
	}

	stdout := newCapture(e.set.spillDir, "bash-output", maxChars)
	stderr := newCapture(e.set.spillDir, "bash-stderr", maxChars)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); stdout.drain(outR, &e.bufs) }()
	go func() { defer readers.Done(); stderr.drain(errR, &e.bufs) }()

	timer := time.AfterFunc(time.Duration(timeoutMs)*time.Millisecond, func() { g.stop(causeTimeout, killGrace) })
	stopOnCancel := context.AfterFunc(ctx, func() { g.stop(causeCancel, 0) })
	ps, werr := g.wait()
	timer.Stop()
	stopOnCancel()

	// The group is dead now, so EOF is normally immediate; only a process
	// that left the group can hold a pipe open, and it does not get to
	// hold this call.
	deadline := time.Now().Add(drainWait)
	_ = outR.SetReadDeadline(deadline) // best effort: pipes support deadlines on unix
	_ = errR.SetReadDeadline(deadline)
	readers.Wait()
	closeFiles(outR, errR)
	e.forget(g)

	if ps == nil {
		return nil, fmt.Errorf("bash: wait for process %d: %w", g.pid, werr)
	}
	cause, timedOut := g.outcome()
	x := exitOf(ps)
	return &execution{stdout: stdout, stderr: stderr, st: Status{
		ExitCode:  x.code,
		Signal:    x.signal,
		TimedOut:  timedOut,
		TimeoutMs: timeoutMs,
		Cancelled: cause == causeCancel || cause == causeSession || cause == causeShutdown,
	}}, nil
}

// runResult cuts the captured output to the character budget, saves the full
// output when anything was cut, and builds the result.
func (e *executor) runResult(stdout, stderr *capture, st Status) *tools.Result {
	limit := int64(e.set.maxChars)
	outN, errN := budget(limit, stdout.chars, stderr.chars)
	// Memory also drops bytes that are not characters (invalid UTF-8), so a
	// stream that outgrew its ring is cut whatever the count says.
	lost := stdout.total > int64(stdout.tail.len()) || stderr.total > int64(stderr.tail.len())
	st.Truncated = stdout.chars+stderr.chars > limit || lost
	outKept := tailChars(stdout.tail.bytes(), outN)
	errKept := tailChars(stderr.tail.bytes(), errN)

	var spillErr error
	if st.Truncated {
		st.SpillPath, spillErr = saveSpill(e.set.spillDir, stdout, stderr, &e.bufs)
	}
	text := formatRun(runOutput{
		stdout:     outKept,
		stderr:     errKept,
		outOmitted: stdout.chars - countChars(outKept),
		errOmitted: stderr.chars - countChars(errKept),
		hasStderr:  stderr.total > 0,
	}, st, spillErr)

	s := map[string]any{
		"exitCode":  st.ExitCode,
		"signal":    nil,
		"timedOut":  st.TimedOut,
		"truncated": st.Truncated,
	}
	if st.Signal != "" {
		s["exitCode"], s["signal"] = nil, st.Signal
	}
	if st.SpillPath != "" {
		s["spillPath"] = st.SpillPath
	}
	if st.Cancelled {
		s["cancelled"] = true
	}
	return &tools.Result{
		Text:       text,
		IsError:    st.Cancelled,
		Structured: s,
		Raw:        string(outKept) + string(errKept),
	}
}

// budget splits limit characters between stdout and stderr: a stream that
// fits in half keeps all of it and the other gets the rest.
func budget(limit, out, errs int64) (int64, int64) {
	if out+errs <= limit {
		return out, errs
	}
	half := limit / 2
	switch {
	case errs <= half:
		return limit - errs, errs
	case out <= half:
		return out, limit - out
	}
	return limit - half, half
}

func startError(err error) *tools.Result {
	if errors.Is(err, ErrClosed) {
		return tools.Errorf("the bash tool has been closed; no command was started")
	}
	return tools.Errorf("could not start the command: %v", err)
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		_ = f.Close() // best effort: pipe ends we no longer need
	}
}
