package persistent

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"unicode/utf8"
)

// maxSpillBytes caps one spill file, so a command that prints forever
// (yes) cannot fill the disk; the text says when the file was cut.
const maxSpillBytes = 128 << 20

// capture gathers one stretch of terminal output (a call, or what arrives
// between calls) as clean text in bounded memory. Up to max characters are
// kept whole; past that it keeps the first headMax and the last tailMax
// characters and streams the full text to a spill file.
type capture struct {
	clean *cleaner

	max, headMax, tailMax int
	spillDir              string

	buf   []byte // everything, while it fits in max characters
	chars int64  // characters (runes) seen
	lines int64  // newlines seen

	spilled    bool
	head, tail []byte // when spilled: the first headMax characters, the latest ones
	spill      *os.File
	w          *bufio.Writer
	spillBytes int64
	spillCut   bool
	spillErr   error
}

// captured is a finished capture.
type captured struct {
	text       string // output, or head + gap notice + tail
	truncated  bool
	spillPath  string
	invalidUTF int
}

func newCapture(max int, spillDir string) *capture {
	head := max * 2 / 5
	c := &capture{max: max, headMax: head, tailMax: max - head, spillDir: spillDir}
	c.clean = newCleaner(c.add)
	return c
}

// write takes raw terminal bytes.
func (c *capture) write(raw []byte) { c.clean.write(raw) }

// add takes clean text from the cleaner.
func (c *capture) add(p []byte) {
	n := int64(utf8.RuneCount(p))
	c.chars += n
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if !c.spilled {
		c.buf = append(c.buf, p...)
		if c.chars > int64(c.max) {
			c.startSpill()
		}
		return
	}
	c.toSpill(p)
	c.tail = append(c.tail, p...)
	// Each character is at most 4 bytes, so the last 4*tailMax bytes always
	// hold the last tailMax characters; trim only when well past that.
	if keep := 4 * c.tailMax; len(c.tail) > 2*keep+(64<<10) {
		cut := len(c.tail) - keep
		for cut < len(c.tail) && !utf8.RuneStart(c.tail[cut]) {
			cut++
		}
		c.tail = append(c.tail[:0], c.tail[cut:]...)
	}
}

func (c *capture) startSpill() {
	c.spilled = true
	c.head = prefixRunes(c.buf, c.headMax)
	c.tail = c.buf
	c.spill, c.spillErr = os.CreateTemp(c.spillDir, "bash-output-*.txt")
	if c.spillErr == nil {
		c.w = bufio.NewWriterSize(c.spill, 64<<10)
	}
	c.toSpill(c.buf)
	c.buf = nil
}

func (c *capture) toSpill(p []byte) {
	if c.w == nil || c.spillCut || c.spillErr != nil {
		return
	}
	if room := maxSpillBytes - c.spillBytes; int64(len(p)) > room {
		p = p[:room]
		c.spillCut = true
	}
	n, err := c.w.Write(p)
	c.spillBytes += int64(n)
	if err != nil {
		c.spillErr = err
	}
}

// finish flushes the cleaner and returns the text. The capture must not be
// written to afterwards.
func (c *capture) finish() captured {
	c.clean.flush()
	out := captured{invalidUTF: c.clean.invalid}
	if !c.spilled {
		out.text = string(c.buf)
		return out
	}
	head := cutAtLastNewline(c.head)
	tail := cutAfterFirstNewline(suffixRunes(c.tail, c.tailMax))
	gapChars := c.chars - int64(utf8.RuneCount(head)) - int64(utf8.RuneCount(tail))
	gapLines := c.lines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	out.truncated = true
	where := c.closeSpill()
	if c.spill != nil && c.spillErr == nil {
		out.spillPath = c.spill.Name()
	}
	sep := ""
	if len(head) > 0 && head[len(head)-1] != '\n' {
		sep = "\n"
	}
	out.text = fmt.Sprintf("%s%s[... %s left out of %s characters; %s ...]\n%s",
		head, sep, countText(gapChars, gapLines), commas(c.chars), where, tail)
	return out
}

// closeSpill flushes and closes the spill file and says where the full
// output is.
func (c *capture) closeSpill() string {
	if c.w != nil && c.spillErr == nil {
		c.spillErr = c.w.Flush()
	}
	if c.spill != nil {
		if err := c.spill.Close(); err != nil && c.spillErr == nil {
			c.spillErr = err
		}
	}
	switch {
	case c.spillErr != nil:
		if c.spill != nil {
			_ = os.Remove(c.spill.Name()) // Best effort: a partial file misleads.
		}
		return fmt.Sprintf("the full output could not be saved: %v", c.spillErr)
	case c.spillCut:
		return fmt.Sprintf("the first %d MiB of the output are in %s", maxSpillBytes>>20, c.spill.Name())
	}
	return "full output in " + c.spill.Name()
}

// remove deletes the spill file of a finished capture whose text was never
// shown.
func (c captured) remove() {
	if c.spillPath != "" {
		_ = os.Remove(c.spillPath) // Best effort.
	}
}

// discard drops the capture and its spill file: the text was never shown.
func (c *capture) discard() {
	if c.spill != nil {
		_ = c.spill.Close()           // Best effort.
		_ = os.Remove(c.spill.Name()) // Best effort.
	}
}

func countText(chars, lines int64) string {
	s := commas(chars) + " characters"
	if chars == 1 {
		s = "1 character"
	}
	switch lines {
	case 0:
		return s
	case 1:
		return s + " (1 line)"
	}
	return s + " (" + commas(lines) + " lines)"
}

// commas formats n with thousands separators, for counts a reader must
// take in at a glance.
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func prefixRunes(b []byte, n int) []byte {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return append([]byte(nil), b[:i]...)
}

func suffixRunes(b []byte, n int) []byte {
	i := len(b)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRune(b[:i])
		i -= size
	}
	return b[i:]
}

// cutAtLastNewline ends the head after a whole line when one ends in its
// second half, so the gap notice does not split a line.
func cutAtLastNewline(b []byte) []byte {
	if i := bytes.LastIndexByte(b, '\n'); i >= len(b)/2 {
		return b[:i+1]
	}
	return b
}

// cutAfterFirstNewline starts the tail at a line start when one begins in
// its first half.
func cutAfterFirstNewline(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)/2 {
		return b[i+1:]
	}
	return b
}
