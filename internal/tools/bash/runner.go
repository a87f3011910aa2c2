package bash

import (
	"context"

	"github.com/shellport/shellport/internal/tools"
)

// Runner runs commands with the one-shot executor for a tool that words its
// own results, such as the Responses API's shell: each command runs exactly
// as bash's do — `bash -c` in a new session, stdin /dev/null, supervised,
// owned by the calling session and killed with it — and comes back with
// stdout and stderr apart.
type Runner struct{ e *executor }

// NewRunner returns a runner with cfg's settings; TimeoutMs, MaxTimeoutMs,
// MaxTasks and MaxLogBytes are not used (Run takes the timeout). It
// implements SessionCloser and Closer like the bash tool.
func NewRunner(host tools.Host, cfg Config) *Runner { return &Runner{newExecutor(host, cfg)} }

// Output is one finished command.
type Output struct {
	Stdout, Stderr Stream
	// ExitCode is the exit status, or -1 when Signal killed the command.
	ExitCode int
	Signal   string // "SIGKILL"; empty for a normal exit
	TimedOut bool
	// StartErr is why the command could not be started; nothing else is
	// set then.
	StartErr error
}

// Stream is one output stream as clean text (valid UTF-8), whole or cut in
// the middle.
type Stream struct {
	// Head is the stream's beginning, the whole stream when Omitted is 0
	// and Tail is empty.
	Head []byte
	// Tail is its end; empty when nothing was left out.
	Tail []byte
	// Omitted counts the characters left out between Head and Tail.
	Omitted int64
	// InvalidUTF8 counts the bytes that were not UTF-8 and became U+FFFD.
	InvalidUTF8 int
}

// Run runs command in dir (the runtime's working directory when empty) for
// at most timeoutMs milliseconds, keeping of each stream its first and last
// keep characters (the whole stream when it has at most twice that). It
// returns once the command and everything it started are gone; a command
// cancelled, or stopped by its session's close or the runner's, returns an
// error.
func (r *Runner) Run(ctx context.Context, call *tools.Call, command, dir string, timeoutMs, keep int) (Output, error) {
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	// A capture keeps its first 40% and last 60% of its budget, so a
	// budget of 2.5×keep keeps both ends whole.
	x, err := r.e.execute(ctx, call, command, dir, timeoutMs, keep*5/2+1)
	if err != nil {
		return Output{}, err
	}
	if x.startErr != nil {
		return Output{StartErr: x.startErr}, nil
	}
	out := Output{
		Stdout:   ends(x.stdout.Ends(keep)),
		Stderr:   ends(x.stderr.Ends(keep)),
		ExitCode: x.st.exitCode,
		Signal:   x.st.signal,
		TimedOut: x.st.timedOut,
	}
	if out.Signal != "" {
		out.ExitCode = -1
	}
	return out, nil
}

func ends(head, tail []byte, omitted int64, invalid int) Stream {
	return Stream{Head: head, Tail: tail, Omitted: omitted, InvalidUTF8: invalid}
}

// CloseSession kills what the session with sessionKey started.
func (r *Runner) CloseSession(sessionKey string) { r.e.closeSession(sessionKey) }

// Running says how many commands of the session are live, for
// tools.Runner.
func (r *Runner) Running(sessionKey string) string { return r.e.busy(sessionKey) }

// Close kills everything the runner started; later commands are refused.
func (r *Runner) Close() error { return r.e.close() }
