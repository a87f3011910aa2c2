package bash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// run executes one foreground command and returns its result. It returns
// once the command's shell has exited and its output is drained, or — after
// a timeout — once the group is dead and drained. A call cancelled (or cut
// short by its session's close or the tool's) returns an error and no
// result: nobody will read one.
func (e *executor) run(ctx context.Context, call *tools.Call, command, dir string, timeoutMs int) (*tools.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x, err := e.execute(ctx, call, command, dir, timeoutMs, e.set.maxChars)
	if err != nil {
		return nil, err
	}
	if x.startErr != nil {
		return startError(x.startErr), nil
	}
	r := output.Result{
		Output:   output.Finish(e.set.maxChars, output.Section{Capture: x.stdout}, output.Section{Label: "[stderr]", Capture: x.stderr}),
		TimedOut: x.st.timedOut,
		Timeout:  x.st.timeout,
		Signal:   x.st.signal,
	}
	if x.st.signal == "" {
		r.ExitCode = output.Code(x.st.exitCode)
	}
	return r.ToolResult(), nil
}

// execution is one finished foreground command: its captured streams and
// how it ended.
type execution struct {
	stdout, stderr *output.Capture
	st             status
	startErr       error // the command could not be started; nothing else is set
}

// status is how a command that ran to its end (or its timeout) ended.
type status struct {
	exitCode int    // when signal is ""
	signal   string // "SIGKILL"
	timedOut bool
	timeout  time.Duration
}

// execute runs command with `bash -c` in dir under the call's session and
// waits for it: until it exits and its output is drained, or — after the
// timeout or ctx's end — until its group is dead and drained. Each stream
// is captured with a budget of maxChars characters. A command cancelled or
// cut short by its session's close or the tool's returns an error.
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
	g, err := e.start(command, dir, call.Session.Environ(os.Environ()), outW, errW, call.Session.Key, call.Session.Sandbox)
	closeFiles(outW, errW) // the child holds its own copies
	if err != nil {
		closeFiles(outR, errR)
		return &execution{startErr: err}, nil
	}

	// A live stream (call.Observe) sees both streams as they arrive, as a
	// terminal would show them; the result keeps them apart.
	stdout := output.NewCapture(output.Options{MaxChars: maxChars, SpillDir: e.set.spillDir, SpillPrefix: "bash-output", Observe: call.Observe})
	stderr := output.NewCapture(output.Options{MaxChars: maxChars, SpillDir: e.set.spillDir, SpillPrefix: "bash-stderr", Observe: call.Observe})
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); e.drain(outR, stdout) }()
	go func() { defer readers.Done(); e.drain(errR, stderr) }()

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
		stdout.Discard()
		stderr.Discard()
		return nil, fmt.Errorf("bash: wait for process %d: %w", g.pid, werr)
	}
	cause, timedOut := g.outcome()
	st := status{timedOut: timedOut, timeout: time.Duration(timeoutMs) * time.Millisecond}
	switch cause {
	case causeCancel, causeSession, causeShutdown:
		stdout.Discard()
		stderr.Discard()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case cause == causeSession:
			return nil, ErrSessionClosed
		}
		return nil, ErrClosed
	}
	if x := exitOf(ps); x.signal != "" {
		st.signal = x.signal
	} else {
		st.exitCode = x.code
	}
	return &execution{stdout: stdout, stderr: stderr, st: st}, nil
}

// drain reads r into c until end-of-file, a read deadline or an error.
func (e *executor) drain(r io.Reader, c *output.Capture) {
	buf := e.bufs.get()
	defer e.bufs.put(buf)
	for {
		n, err := r.Read(*buf)
		if n > 0 {
			_, _ = c.Write((*buf)[:n]) // a capture never fails
		}
		if err != nil {
			return
		}
	}
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
