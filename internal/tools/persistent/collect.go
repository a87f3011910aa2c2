package persistent

import (
	"github.com/shellport/shellport/internal/tools/output"
)

// capture gathers one stretch of terminal output (a call, or what arrives
// between calls) as clean text in bounded memory: the cleaner turns the
// terminal's bytes into the text a reader would see, and the output core
// (internal/tools/output) keeps it within the character budget, with the
// rest in a spill file.
type capture struct {
	clean    *cleaner
	out      *output.Capture
	maxChars int
}

// captured is a finished capture: the output core's text, with the
// cleaner's replacements of invalid UTF-8 counted in.
type captured = output.Text

func newCapture(maxChars int, spillDir string) *capture {
	c := &capture{maxChars: maxChars, out: output.NewCapture(output.Options{MaxChars: maxChars, SpillDir: spillDir, SpillPrefix: "bash-output"})}
	c.clean = newCleaner(func(p []byte) { _, _ = c.out.Write(p) }) // a capture never fails
	return c
}

// write takes raw terminal bytes.
func (c *capture) write(raw []byte) { c.clean.write(raw) }

// finish flushes the cleaner and returns the text. The capture must not be
// written to afterwards.
func (c *capture) finish() captured {
	c.clean.flush()
	text := output.Finish(c.maxChars, output.Section{Capture: c.out})
	text.InvalidUTF8 += c.clean.invalid
	return text
}

// discard drops the capture and its spill file: the text was never shown.
func (c *capture) discard() { c.out.Discard() }
