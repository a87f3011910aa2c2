// Package output is the one output core of shellport's two bash tools (the
// one-shot bash and the persistent one): it turns what a command printed,
// and how the command ended, into the text the model reads, the facts a
// program reads and the card a UI draws, the same way for both.
//
// A tool writes each output stream into a [Capture] (an io.Writer) as it
// arrives. A capture keeps memory bounded whatever a command prints: the
// whole text while it fits the character budget, then its head and its
// tail, with everything written to a spill file. [Finish] cuts the
// captures of one command to the budget together and names the spill file
// when anything was cut. The tool then fills a [Result] with how the
// command ended, and [Result.ToolResult] writes the text and the facts in
// the one dialect docs/TOOLS.md describes:
//
//	the output (stdout, then a [stderr] section: one-shot only)
//	  with [... N characters (M lines) left out ...] where it was cut
//	[no output]                           when there is nothing else to say
//	[N bytes of the output were not valid UTF-8 and were replaced with U+FFFD]
//	[timed out after 2 seconds]
//	[killed by signal: SIGTERM] or [exit code: 2]
//	the tool's own lines (persistent: that the shell was reset, and why)
//	[output truncated; full output: /spill/bash-output-123.txt]
//
// and structuredContent always has the keys in [MetaKeys]. [ParseStatus]
// reads the status lines back (for results replayed without their facts),
// and [Card] is the presentation both tools give a UI.
//
// A capture can be observed: Options.Observe sees the clean text as it is
// written, for output streamed live. When it is nil nothing is done for it.
package output

import (
	"time"
)

// SpillLimit caps one spill file, so a command that prints for ever cannot
// fill the disk; the file ends with a note when it was reached.
const SpillLimit = 256 << 20

// Options configure a Capture.
type Options struct {
	// MaxChars is the result's character budget. A capture keeps what any
	// share of it needs: the whole text up to MaxChars characters, then the
	// first 40% and the last 60% of it.
	MaxChars int
	// SpillDir is where the full output goes once it is cut; "" means
	// os.TempDir().
	SpillDir string
	// SpillPrefix names the spill files (PREFIX-*.txt); "" means
	// "bash-output".
	SpillPrefix string
	// Observe, when not nil, is called with each piece of clean text as it
	// is written: valid UTF-8, in order, on the writer's goroutine. It must
	// not keep the slice or block for long. Nil costs nothing.
	Observe func(text []byte)
}

// Section is one capture in a command's output, shown after a line with
// its label when it has a label and holds anything: the one-shot tool's
// stderr is {Label: "[stderr]"}.
type Section struct {
	Label   string
	Capture *Capture
}

// Text is the finished output of one command: its captures cut to the
// budget together.
type Text struct {
	// Body is the output as the model reads it: each section's text, cut
	// with a note where characters were left out, labels between them. It
	// is valid UTF-8 and "" when nothing was printed.
	Body string
	// Truncated tells that something was left out; SpillPath then names
	// the file holding all of it ("" when it could not be written, and
	// SpillErr says why).
	Truncated bool
	SpillPath string
	SpillErr  error
	// InvalidUTF8 counts the bytes that were not valid UTF-8 and were
	// replaced with U+FFFD.
	InvalidUTF8 int
}

// Result is how one command went, in the facts both bash tools report.
type Result struct {
	// Output is what the command printed.
	Output Text
	// ExitCode is the command's exit status; nil when there is none
	// (killed by a signal, timed out, a shell that vanished).
	ExitCode *int
	// Signal names the signal that killed the command ("SIGKILL"), or "".
	Signal string
	// TimedOut tells that the command ran into its timeout, Timeout.
	TimedOut bool
	Timeout  time.Duration
	// WaitingForInput tells that the command was blocked reading the
	// terminal when it timed out (persistent only).
	WaitingForInput bool
	// ShellReset tells that the shell the model knew is gone: its working
	// directory, variables and jobs are lost (persistent only).
	ShellReset bool
	// Opening are lines the text starts with, before the output: a reset
	// the model has not been told of yet.
	Opening []string
	// Closing are the tool's own status lines, after the exit status: how
	// a shell ended, that it was reset.
	Closing []string
	// IsError marks the result as an infrastructure failure (the command
	// could not be handed to the shell).
	IsError bool
}

// Code returns a pointer to n, for Result.ExitCode.
func Code(n int) *int { return &n }

// MetaKeys are the keys of every bash result's structuredContent, in both
// profiles: exitCode (a number or null), signal (a name or null), timedOut,
// truncated, spillPath (the spill file, or null when nothing was cut),
// shellReset (always false for one-shot, where nothing persists to lose),
// waitingForInput (always false for one-shot, whose stdin is empty) and
// invalidUtf8 (a count of bytes).
var MetaKeys = []string{"exitCode", "signal", "timedOut", "truncated", "spillPath", "shellReset", "waitingForInput", "invalidUtf8"}
