package output

import (
	"bytes"
	"unicode/utf8"
)

// Capture collects one output stream of a command as clean text in bounded
// memory: invalid UTF-8 is replaced with U+FFFD and counted; up to
// MaxChars characters are kept whole; past that it keeps the first 40% and
// the last 60% of MaxChars and writes the full stream to a spill file.
// The spill file holds the bytes as written, invalid ones included.
//
// A Capture is used by one goroutine at a time: the writer, then whoever
// calls Finish or Discard.
type Capture struct {
	opts             Options
	headMax, tailMax int

	partial []byte // an incomplete UTF-8 sequence from the end of the last write
	invalid int    // bytes replaced with U+FFFD
	total   int64  // bytes written
	chars   int64  // characters of clean text
	lines   int64  // newlines

	buf []byte // the clean text, while it fits in MaxChars characters
	raw []byte // the bytes buf came from, only once they differ from it

	spilled    bool
	head, tail []byte // once spilled: the first headMax characters, the latest ones
	spill      *spillFile
	spillErr   error
}

// NewCapture returns an empty capture.
func NewCapture(opts Options) *Capture {
	if opts.MaxChars < 1 {
		opts.MaxChars = 1
	}
	if opts.SpillPrefix == "" {
		opts.SpillPrefix = "bash-output"
	}
	head := opts.MaxChars * 2 / 5
	return &Capture{opts: opts, headMax: head, tailMax: opts.MaxChars - head}
}

// Write takes raw output. It never fails: a spill file that cannot be
// written is reported by Finish.
func (c *Capture) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.total += int64(len(p))
	prev := c.partial // sanitize replaces it, never writes into it
	clean, changed := c.sanitize(p)
	switch {
	case c.spilled:
		if c.spill != nil {
			c.spill.write(p)
		}
	case c.raw != nil:
		c.raw = append(c.raw, p...)
	case changed:
		// Until now the bytes were the text, and the sequence held back.
		c.raw = make([]byte, 0, len(c.buf)+len(prev)+len(p))
		c.raw = append(append(append(c.raw, c.buf...), prev...), p...)
	}
	c.add(clean)
	return len(p), nil
}

// sanitize returns p, after the bytes held back from the last write, as
// valid UTF-8, holding back an incomplete sequence at its end, and whether
// anything was replaced.
func (c *Capture) sanitize(p []byte) ([]byte, bool) {
	data := p
	if len(c.partial) > 0 {
		data = append(append([]byte(nil), c.partial...), p...)
		c.partial = nil
	}
	cut := len(data) - incompleteSuffix(data)
	if cut < len(data) {
		c.partial = append([]byte(nil), data[cut:]...)
	}
	data = data[:cut]
	if utf8.Valid(data) {
		return data, false
	}
	out := make([]byte, 0, len(data)+16)
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			c.invalid++
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out, true
}

// add takes clean text.
func (c *Capture) add(p []byte) {
	if len(p) == 0 {
		return
	}
	if c.opts.Observe != nil {
		c.opts.Observe(p)
	}
	c.chars += int64(utf8.RuneCount(p))
	c.lines += int64(bytes.Count(p, newline))
	if !c.spilled {
		c.buf = append(c.buf, p...)
		if c.chars > int64(c.opts.MaxChars) {
			c.startSpill()
		}
		return
	}
	c.tail = append(c.tail, p...)
	// A character is at most 4 bytes, so the last 4*tailMax bytes hold the
	// last tailMax characters; trim only when well past that.
	if keep := 4 * c.tailMax; len(c.tail) > 2*keep+(64<<10) {
		cut := len(c.tail) - keep
		for cut < len(c.tail) && !utf8.RuneStart(c.tail[cut]) {
			cut++
		}
		c.tail = append(c.tail[:0], c.tail[cut:]...)
	}
}

var newline = []byte{'\n'}

// startSpill moves the capture from whole text to head, tail and file.
func (c *Capture) startSpill() {
	c.spilled = true
	c.head = prefixRunes(c.buf, c.headMax)
	c.tail = c.buf
	c.spill, c.spillErr = createSpill(c.opts.SpillDir, c.opts.SpillPrefix)
	if c.spill != nil {
		c.spill.write(c.rawSoFar())
	}
	c.buf, c.raw = nil, nil
}

// rawSoFar is every byte written, while not spilled.
func (c *Capture) rawSoFar() []byte {
	if c.raw != nil {
		return c.raw
	}
	return append(c.buf[:len(c.buf):len(c.buf)], c.partial...)
}

// flush ends the stream: a sequence still held back is invalid.
func (c *Capture) flush() {
	if len(c.partial) == 0 {
		return
	}
	p := c.partial
	c.partial = nil
	if !c.spilled && c.raw == nil {
		c.raw = append(append([]byte(nil), c.buf...), p...)
	}
	c.invalid += len(p)
	c.add(bytes.Repeat([]byte(string(utf8.RuneError)), len(p)))
}

// Discard drops the capture and its spill file: its text will never be
// shown.
func (c *Capture) Discard() {
	if c.spill != nil {
		c.spill.remove()
		c.spill = nil
	}
}

// Observe sets the function that sees the clean text from now on (nil:
// none), first with the text the capture already holds whole: a
// persistent shell's capture collects what arrives between calls, which
// the next call's result begins with.
func (c *Capture) Observe(f func(text []byte)) {
	c.opts.Observe = f
	if f != nil && !c.spilled && len(c.buf) > 0 {
		f(c.buf)
	}
}

// Chars is the number of characters written so far (clean text).
func (c *Capture) Chars() int64 { return c.chars }

// incompleteSuffix returns how many bytes at the end of p start a UTF-8
// sequence that may still be completed by the next write.
func incompleteSuffix(p []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if utf8.FullRune(p[len(p)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
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

// Ends ends the capture and returns its first and last keep characters of
// clean text, the whole of it (as head) when it has at most 2*keep, and
// how many characters lie between them; invalid counts the bytes replaced
// with U+FFFD. The spill file is removed: a caller that words its own
// result keeps no file. The capture needs MaxChars ≥ keep*5/2 to keep
// both ends whole; with less, omitted counts what it lost.
func (c *Capture) Ends(keep int) (head, tail []byte, omitted int64, invalid int) {
	c.flush()
	defer c.Discard()
	if !c.spilled && c.chars <= int64(2*keep) {
		return c.buf, nil, 0, c.invalid
	}
	head, tail = c.head, c.tail
	if !c.spilled {
		head, tail = c.buf, c.buf
	}
	head = prefixRunes(head, keep)
	tail = suffixRunes(tail, keep)
	omitted = c.chars - int64(utf8.RuneCount(head)) - int64(utf8.RuneCount(tail))
	return head, tail, max(omitted, 0), c.invalid
}
