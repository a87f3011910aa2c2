package persistent

import (
	"strconv"
	"unicode/utf8"
)

// Limits that keep the cleaner's state bounded whatever the stream holds.
const (
	// maxLineRunes caps one line held for carriage-return overwrites; a
	// longer line is passed on in pieces (a later \r then only rewrites the
	// piece in progress).
	maxLineRunes = 1 << 16
	// maxCSI and maxString cap control sequences; past them the sequence
	// is abandoned and what follows is text again, so a stray ESC ] cannot
	// swallow the rest of the output.
	maxCSI    = 64
	maxString = 4096
)

type escState uint8

const (
	stGround   escState = iota
	stEsc               // after ESC
	stEscInter          // ESC followed by intermediates (0x20-0x2f)
	stCSI               // ESC [ or U+009B
	stString            // OSC, DCS, SOS, PM, APC: up to BEL or ESC \ (or a newline)
)

// cleaner turns a terminal byte stream into the text a reader would see:
// escape sequences removed, carriage returns and backspaces applied to the
// line in progress (so a progress bar leaves only its final state), erase
// and cursor-column sequences applied, other control characters dropped,
// and invalid UTF-8 replaced with U+FFFD and counted. It is incremental:
// feeding a stream in any split gives the same text.
type cleaner struct {
	emit    func([]byte)
	state   escState
	seqLen  int
	strEsc  bool   // in a string sequence, the previous byte was ESC
	params  []byte // CSI parameter bytes
	private bool   // CSI with a private marker (?, <, =, >): ignored
	partial []byte // an incomplete UTF-8 sequence from the end of a write
	line    []rune // the line in progress, as terminal cells
	col     int
	invalid int // bytes replaced with U+FFFD
	out     []byte
}

func newCleaner(emit func([]byte)) *cleaner {
	return &cleaner{emit: emit, params: make([]byte, 0, maxCSI)}
}

// keptLine bounds the line buffers a cleaner keeps from one stretch of
// output to the next: a long line's buffers are dropped, so thousands of
// idle shells hold little.
const keptLine = 1 << 10

// reset makes a flushed cleaner ready for a new stream, keeping its small
// buffers (issue 16: no cleaner is allocated per call).
func (c *cleaner) reset() {
	line, out, params := c.line[:0], c.out[:0], c.params[:0]
	if cap(line) > keptLine {
		line = nil
	}
	if cap(out) > 4*keptLine {
		out = nil
	}
	*c = cleaner{emit: c.emit, params: params, line: line, out: out}
}

// plain marks bytes the fast path may pass through untouched.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['\t'], t['\n'] = true, true
	return t
}()

func (c *cleaner) write(b []byte) {
	if len(c.partial) > 0 {
		joined := append(c.partial, b...)
		c.partial = nil
		b = joined
	}
	for len(b) > 0 {
		if c.state == stGround && len(c.line) == 0 && c.col == 0 {
			// Fast path: whole plain lines go out as they are.
			n, last := 0, -1
			for n < len(b) && plain[b[n]] {
				if b[n] == '\n' {
					last = n
				}
				n++
			}
			if last >= 0 {
				c.emit(b[:last+1])
				b = b[last+1:]
				continue
			}
		}
		b = c.step(b)
	}
}

// step consumes at least one byte (or stashes an incomplete rune) and
// returns the rest.
func (c *cleaner) step(b []byte) []byte {
	x := b[0]
	switch c.state {
	case stGround:
		if x < utf8.RuneSelf {
			c.control(x)
			return b[1:]
		}
		if !utf8.FullRune(b) {
			c.partial = append([]byte(nil), b...)
			return nil
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			c.invalid++
			c.put(utf8.RuneError)
			return b[1:]
		}
		switch {
		case r == 0x9b: // C1 CSI
			c.startCSI()
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			c.state, c.seqLen, c.strEsc = stString, 0, false
		case r >= 0x80 && r < 0xa0: // other C1 controls
		default:
			c.put(r)
		}
		return b[size:]
	case stEsc:
		switch {
		case x == '[':
			c.startCSI()
		case x == ']' || x == 'P' || x == 'X' || x == '^' || x == '_':
			c.state, c.seqLen, c.strEsc = stString, 0, false
		case x >= 0x20 && x <= 0x2f:
			c.state = stEscInter
		case x >= 0x30 && x <= 0x7e:
			c.state = stGround
		case x == 0x1b:
		default: // a control or non-ASCII byte ends the sequence and counts as itself
			c.state = stGround
			return b
		}
		return b[1:]
	case stEscInter:
		switch {
		case x >= 0x20 && x <= 0x2f:
		case x >= 0x30 && x <= 0x7e:
			c.state = stGround
		default:
			c.state = stGround
			return b
		}
		return b[1:]
	case stCSI:
		c.seqLen++
		switch {
		case x >= 0x30 && x <= 0x3f:
			if len(c.params) == 0 && x >= 0x3c {
				c.private = true
			}
			if len(c.params) < cap(c.params) {
				c.params = append(c.params, x)
			}
		case x >= 0x20 && x <= 0x2f:
		case x >= 0x40 && x <= 0x7e:
			c.state = stGround
			if !c.private {
				c.csi(x)
			}
		case x == 0x1b:
			c.state = stEsc
		default:
			c.state = stGround
			return b
		}
		if c.state == stCSI && c.seqLen > maxCSI {
			c.state = stGround
		}
		return b[1:]
	default: // stString
		c.seqLen++
		switch {
		case x == 0x07:
			c.state = stGround
		case c.strEsc && x == '\\':
			c.state = stGround
		case c.strEsc:
			c.state = stEsc // ESC then anything else starts a new sequence
			return b
		case x == '\n':
			// No string sequence a program sends on purpose (a title, a
			// hyperlink, a terminal query) holds a newline, so one that
			// reaches a newline was never terminated: it ends here and the
			// newline, and every line after it, is text again.
			c.state = stGround
			return b
		}
		c.strEsc = x == 0x1b
		if c.state == stString && c.seqLen > maxString {
			c.state = stGround
		}
		return b[1:]
	}
}

func (c *cleaner) startCSI() {
	c.state, c.seqLen, c.private = stCSI, 0, false
	c.params = c.params[:0]
}

func (c *cleaner) control(x byte) {
	switch x {
	case '\n':
		c.flushLine(true)
	case '\r':
		c.col = 0
	case '\b':
		if c.col > 0 {
			c.col--
		}
	case '\t':
		c.put('\t')
	case 0x1b:
		c.state = stEsc
	default:
		if x >= 0x20 && x < 0x7f {
			c.put(rune(x))
		}
		// Other C0 controls and DEL have no text form.
	}
}

// csi applies the sequences that change the line's final text: erase in
// line and horizontal cursor moves. Everything else (colours, vertical
// moves, modes) is dropped.
func (c *cleaner) csi(final byte) {
	n := 0
	p := c.params
	for i, x := range p {
		if x == ';' || x == ':' {
			p = p[:i]
			break
		}
	}
	if v, err := strconv.Atoi(string(p)); err == nil {
		n = v
	}
	switch final {
	case 'K':
		switch n {
		case 0:
			if c.col < len(c.line) {
				c.line = c.line[:c.col]
			}
		case 1:
			for i := 0; i <= c.col && i < len(c.line); i++ {
				c.line[i] = ' '
			}
		case 2:
			c.line = c.line[:0]
		}
	case 'G':
		c.col = min(max(n, 1)-1, maxLineRunes)
	case 'C':
		c.col = min(c.col+max(n, 1), maxLineRunes)
	case 'D':
		c.col = max(c.col-max(n, 1), 0)
	}
}

func (c *cleaner) put(r rune) {
	if c.col < len(c.line) {
		c.line[c.col] = r
	} else {
		for len(c.line) < c.col {
			c.line = append(c.line, ' ')
		}
		c.line = append(c.line, r)
	}
	c.col++
	if c.col >= maxLineRunes && c.col == len(c.line) {
		c.flushLine(false)
	}
}

func (c *cleaner) flushLine(newline bool) {
	out := c.out[:0]
	for _, r := range c.line {
		out = utf8.AppendRune(out, r)
	}
	if newline {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		c.emit(out)
	}
	c.out = out
	c.line, c.col = c.line[:0], 0
}

// flush ends the stream: an unfinished line goes out without a newline,
// an incomplete rune counts as invalid, and an open escape sequence is
// dropped.
func (c *cleaner) flush() {
	for range c.partial {
		c.invalid++
		c.put(utf8.RuneError)
	}
	c.partial = nil
	c.flushLine(false)
	c.state = stGround
}
