package persistent

import (
	"github.com/shellport/shellport/internal/tools/output"
)

// capture gathers one stretch of terminal output (a call, or what arrives
// between calls) as clean text in bounded memory: the cleaner turns the
// terminal's bytes into the text a reader would see, and the output core
// (internal/tools/output) keeps it within the character budget, with the
// rest in a spill file. A shell keeps one capture for its life: finish
// hands out a stretch's text and starts the next stretch in the same
// capture and cleaner, so a call allocates only the output core's part
// (issue 16).
type capture struct {
	clean    *cleaner
	out      *output.Capture
	maxChars int
	spillDir string
}

// captured is a finished capture: the output core's text, with the
// cleaner's replacements of invalid UTF-8 counted in.
type captured = output.Text

func newCapture(maxChars int, spillDir string) *capture {
	c := &capture{maxChars: maxChars, spillDir: spillDir}
	c.out = c.newOut()
	c.clean = newCleaner(func(p []byte) { _, _ = c.out.Write(p) }) // a capture never fails
	return c
}

func (c *capture) newOut() *output.Capture {
	return output.NewCapture(output.Options{MaxChars: c.maxChars, SpillDir: c.spillDir, SpillPrefix: "bash-output"})
}

// write takes raw terminal bytes.
func (c *capture) write(raw []byte) { c.clean.write(raw) }

// finish flushes the cleaner and returns the stretch's text; what is
// written afterwards starts the next stretch.
func (c *capture) finish() captured {
	c.clean.flush()
	text := output.Finish(c.maxChars, output.Section{Capture: c.out})
	text.InvalidUTF8 += c.clean.invalid
	c.clean.reset()
	c.out = c.newOut()
	return text
}

// discard drops the stretch and its spill file: the text was never shown.
// What is written afterwards starts the next stretch.
func (c *capture) discard() {
	c.out.Discard()
	c.clean.reset() // unflushed: what it holds is dropped with the rest
	c.out = c.newOut()
}
