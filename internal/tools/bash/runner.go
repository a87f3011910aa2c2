package bash

import (
	"context"
	"io"
	"os"

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
	// Cancelled is set when the call's context ended, or the session or
	// runner closed, before the command did.
	Cancelled bool
	// StartErr is why the command could not be started; nothing else is
	// set then.
	StartErr error
}

// Stream is one output stream, whole or cut in the middle.
type Stream struct {
	// Head is the stream's beginning, the whole stream when Omitted is 0.
	Head []byte
	// Tail is its end; empty when nothing was left out.
	Tail []byte
	// Omitted counts the characters left out between Head and Tail.
	Omitted int64
}

// Run runs command in dir (the runtime's working directory when empty) for
// at most timeoutMs milliseconds, keeping of each stream its first and last
// keep characters (the whole stream when it has at most twice that). It
// returns once the command and everything it started are gone.
func (r *Runner) Run(ctx context.Context, call *tools.Call, command, dir string, timeoutMs, keep int) (Output, error) {
	// Memory holds the last 2*keep characters, so a stream that outgrew
	// it has more than 2*keep: its head (from the spill file) and tail
	// (from memory) never overlap.
	x, err := r.e.execute(ctx, call, command, dir, timeoutMs, 2*keep)
	if err != nil {
		return Output{}, err
	}
	if x.startErr != nil {
		return Output{StartErr: x.startErr}, nil
	}
	return Output{
		Stdout:    x.stdout.cut(keep),
		Stderr:    x.stderr.cut(keep),
		ExitCode:  x.st.ExitCode,
		Signal:    x.st.Signal,
		TimedOut:  x.st.TimedOut,
		Cancelled: x.st.Cancelled,
	}, nil
}

// CloseSession kills what the session with sessionKey started.
func (r *Runner) CloseSession(sessionKey string) { r.e.closeSession(sessionKey) }

// Close kills everything the runner started; later commands are refused.
func (r *Runner) Close() error { return r.e.close() }

// cut returns the stream's first and last keep characters, and removes its
// spill file: a runner's caller words its own results and keeps no file.
func (c *capture) cut(keep int) Stream {
	defer c.removeSpill()
	tail := c.tail.bytes()
	whole := c.total == int64(len(tail)) // memory holds all of it
	if whole && countChars(tail) <= int64(2*keep) {
		return Stream{Head: tail}
	}
	var head []byte
	switch {
	case whole:
		head = headChars(tail, keep)
	case c.spill != nil:
		buf := make([]byte, 4*keep+4)
		n, err := c.spill.f.ReadAt(buf, 0)
		if err != nil && err != io.EOF {
			n = 0 // the head is lost; Omitted counts it
		}
		head = headChars(buf[:n], keep)
	}
	// Otherwise the spill file could not be made and the head is lost.
	tail = tailChars(tail, int64(keep))
	omitted := c.chars - countChars(head) - countChars(tail)
	return Stream{Head: head, Tail: tail, Omitted: max(omitted, 0)}
}

func (c *capture) removeSpill() {
	if c.spill != nil {
		_ = c.spill.f.Close()           // best effort: a temporary file
		_ = os.Remove(c.spill.f.Name()) // best effort
		c.spill = nil
	}
}

// headChars returns the prefix of p holding its first n characters.
func headChars(p []byte, n int) []byte {
	count := 0
	for i, b := range p {
		if b&0xC0 != 0x80 {
			if count == n {
				return p[:i]
			}
			count++
		}
	}
	return p
}
