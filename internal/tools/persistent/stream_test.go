package persistent

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools/output"
)

// clean runs a whole stream through a cleaner, fed in pieces of the given
// sizes (cycled; empty means one piece).
func clean(data []byte, sizes []int) (string, int) {
	var out bytes.Buffer
	c := newCleaner(func(p []byte) { out.Write(p) })
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(sizes) > 0 {
			n = min(max(sizes[i%len(sizes)], 1), len(data))
		}
		c.write(data[:n])
		data = data[n:]
	}
	c.flush()
	return out.String(), c.invalid
}

func TestCleaner(t *testing.T) {
	cases := []struct {
		in, want string
		invalid  int
	}{
		{"plain\nlines\n", "plain\nlines\n", 0},
		{"no newline", "no newline", 0},
		{"\x1b[1;31mred\x1b[0m\n", "red\n", 0},
		{"\x1b]0;window title\x07after\n", "after\n", 0},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n", 0},
		{"\x1bP1$r0m\x1b\\dcs gone\n", "dcs gone\n", 0},
		{"\x1b(Bcharset\x1b=\n", "charset\n", 0},
		{"\x1b[?2004hbracketed\x1b[?2004l\n", "bracketed\n", 0},
		{"10%\r50%\r100%\n", "100%\n", 0},
		{"abcdef\rXY\n", "XYcdef\n", 0},
		{"line\r\n", "line\n", 0},
		{"ab\bc\n", "ac\n", 0},
		{"\b\bx\n", "x\n", 0},
		{"working...\r\x1b[Kdone\n", "done\n", 0},
		{"abcdef\r\x1b[3C\x1b[K\n", "abc\n", 0},
		{"abcdef\x1b[3D\x1b[1K\n", "    ef\n", 0},
		{"abc\x1b[2Kxy\n", "   xy\n", 0},
		{"\x1b[10Gx\n", "         x\n", 0},
		{"tab\there\n", "tab\there\n", 0},
		{"bell\x07 nul\x00 del\x7f\n", "bell nul del\n", 0},
		{"caf\xc3\xa9 \xe2\x82\xac\n", "café €\n", 0},
		{"bad \xff\xfe bytes\n", "bad \ufffd\ufffd bytes\n", 2},
		{"cut \xe2\x82", "cut \ufffd\ufffd", 2},
		{"c1 \u009b31mcsi\u009b0m \u0085nel\n", "c1 csi nel\n", 0},
		{"\x1b[" + strings.Repeat("1", 100) + "text\n", strings.Repeat("1", 100-maxCSI-1) + "text\n", 0},
		{"\x1b]" + strings.Repeat("x", maxString+5) + "\n", "xxxx\n", 0},
		// An unterminated string sequence ends at the end of its line: what
		// follows is not swallowed (found in review of issue 11).
		{"\x1b]0;title never ended\nnext line\nlast\n", "\nnext line\nlast\n", 0},
		{"\x1bPdcs never ended\r\nafter\n", "\nafter\n", 0},
		{"before\x1b_apc\nafter\n", "before\nafter\n", 0},
		{"\u009dc1 osc\nafter\n", "\nafter\n", 0},
	}
	for _, c := range cases {
		for _, sizes := range [][]int{nil, {1}, {2, 3}, {7}} {
			got, invalid := clean([]byte(c.in), sizes)
			if got != c.want || invalid != c.invalid {
				t.Errorf("clean(%q) in pieces %v = %q (%d invalid), want %q (%d)", c.in, sizes, got, invalid, c.want, c.invalid)
			}
		}
	}
}

// A line with no newline and no carriage return is passed on in pieces, so
// the cleaner's memory stays bounded.
func TestCleanerBoundsLongLines(t *testing.T) {
	var pieces int
	c := newCleaner(func(p []byte) { pieces++ })
	c.write(bytes.Repeat([]byte("y"), 3*maxLineRunes+5))
	if pieces < 3 || len(c.line) > maxLineRunes {
		t.Fatalf("%d pieces, %d runes held", pieces, len(c.line))
	}
}

func FuzzCleaner(f *testing.F) {
	for _, seed := range []string{
		"plain\n", "\x1b[31mred\x1b[0m\n", "10%\r100%\n", "\x1b]0;t\x07x", "bad\xff\n", "\xe2\x82\xac",
		"a\bb\x1b[Kc\r\n", "\x1b[5Gx\x1b[2D\x1b[1K", "\u009b1m", "\x1bP\x1b\\", "\x1b\x1b[",
	} {
		f.Add([]byte(seed), []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, data, split []byte) {
		sizes := make([]int, len(split))
		for i, b := range split {
			sizes[i] = int(b)
		}
		whole, inv1 := clean(data, nil)
		pieces, inv2 := clean(data, sizes)
		if whole != pieces || inv1 != inv2 {
			t.Fatalf("split changes the result: %q (%d) vs %q (%d)", whole, inv1, pieces, inv2)
		}
		if !utf8.ValidString(whole) {
			t.Fatalf("invalid UTF-8 out: %q", whole)
		}
		for _, r := range whole {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("control character %U in %q", r, whole)
			}
		}
		if inv1 > len(data) {
			t.Fatalf("%d invalid bytes in %d", inv1, len(data))
		}
	})
}

// oracle stands in for the shell's return FIFO in scanner tests: tokens
// starting with 0-7 end the call, 8-B are dropped, C-F are output.
func oracle(token []byte) frameAction {
	switch {
	case token[0] <= '7':
		return frameEnd
	case token[0] <= '9' || token[0] <= 'B' && token[0] >= 'A':
		return frameDrop
	}
	return frameText
}

// scanAll feeds a stream through a scanner in pieces and returns the
// output, whether a frame ended the call, and what followed it.
func scanAll(data []byte, sizes []int) (out []byte, done bool, rest []byte) {
	var s scanner
	text := func(p []byte) { out = append(out, p...) }
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(sizes) > 0 {
			n = min(max(sizes[i%len(sizes)], 1), len(data))
		}
		chunk := data[:n]
		data = data[n:]
		if done {
			rest = append(rest, chunk...)
			continue
		}
		var r []byte
		done, r = s.feed(chunk, text, oracle)
		if done {
			rest = append(rest, r...)
		}
	}
	if !done {
		out = append(out, s.flush()...)
	}
	return out, done, rest
}

// scanRef is the scanner's specification on a whole stream: frames are
// ESC _ SP, 32 upper-case hex digits, ESC \; each is judged by the oracle
// in stream order; output is everything but the dropped frames, up to the
// first frame that ends the call.
func scanRef(data []byte) (out []byte, done bool, rest []byte) {
	re := regexp.MustCompile("\x1b_SP[0-9A-F]{32}\x1b\\\\")
	for {
		loc := re.FindIndex(data)
		if loc == nil {
			return append(out, data...), false, nil
		}
		token := data[loc[0]+4 : loc[1]-2]
		switch oracle(token) {
		case frameEnd:
			return append(out, data[:loc[0]]...), true, data[loc[1]:]
		case frameDrop:
			out = append(out, data[:loc[0]]...)
		default:
			out = append(out, data[:loc[1]]...)
		}
		data = data[loc[1]:]
	}
}

func TestScanner(t *testing.T) {
	frame := func(token string) string { return "\x1b_SP" + token + "\x1b\\" }
	end := frame("0123456789ABCDEF0123456789ABCDEF")
	drop := frame("9123456789ABCDEF0123456789ABCDEF")
	text := frame("C123456789ABCDEF0123456789ABCDEF")
	cases := []struct {
		in   string
		out  string
		done bool
		rest string
	}{
		{"hello\n" + end + "after", "hello\n", true, "after"},
		{"no newline" + end, "no newline", true, ""},
		{"a" + drop + "b" + end + "c", "ab", true, "c"},
		{"a" + text + "b" + end, "a" + text + "b", true, ""},
		{"lower \x1b_SP0123456789abcdef0123456789abcdef\x1b\\", "lower \x1b_SP0123456789abcdef0123456789abcdef\x1b\\", false, ""},
		{"half " + end[:20], "half " + end[:20], false, ""},
		{"\x1b\x1b_SP" + end[4:], "\x1b", true, ""},
		{end[:37] + "x", end[:37] + "x", false, ""},
	}
	for _, c := range cases {
		for _, sizes := range [][]int{nil, {1}, {5, 17}, {37}} {
			out, done, rest := scanAll([]byte(c.in), sizes)
			if string(out) != c.out || done != c.done || string(rest) != c.rest {
				t.Errorf("%q in pieces %v: %q %v %q, want %q %v %q", c.in, sizes, out, done, rest, c.out, c.done, c.rest)
			}
		}
	}
}

func FuzzScanner(f *testing.F) {
	frame := func(token string) string { return "\x1b_SP" + token + "\x1b\\" }
	for _, seed := range []string{
		"out\n" + frame("0123456789ABCDEF0123456789ABCDEF"),
		"x" + frame("F123456789ABCDEF0123456789ABCDEF")[:30] + frame("9123456789ABCDEF0123456789ABCDEF") + "rest",
		frame("C123456789ABCDEF0123456789ABCDEF") + frame("7123456789ABCDEF0123456789ABCDEF") + "tail", "",
		"\x1b_SP\x1b_SP" + frame("0000000000000000000000000000000G"),
	} {
		f.Add([]byte(seed), []byte{3, 1, 37})
	}
	f.Fuzz(func(t *testing.T, data, split []byte) {
		sizes := make([]int, len(split))
		for i, b := range split {
			sizes[i] = int(b)
		}
		out, done, rest := scanAll(data, sizes)
		wOut, wDone, wRest := scanRef(data)
		if wDone != done || (done && !bytes.Equal(rest, wRest)) {
			t.Fatalf("frame: got %v %q, want %v %q", done, rest, wDone, wRest)
		}
		if !bytes.Equal(out, wOut) {
			t.Fatalf("output %q, want %q", out, wOut)
		}
	})
}

func TestCaptureBoundsAndCounts(t *testing.T) {
	dir := t.TempDir()
	c := newCapture(100, dir)
	var all strings.Builder
	for i := 0; i < 500; i++ {
		line := strings.Repeat("é", i%7) + "line\n"
		all.WriteString(line)
		c.write([]byte(line))
	}
	got := c.finish()
	if !got.Truncated || got.SpillPath == "" {
		t.Fatalf("not spilled: %+v", got)
	}
	spilled, err := os.ReadFile(got.SpillPath)
	if err != nil || string(spilled) != all.String() {
		t.Fatalf("spill file differs (%v)", err)
	}
	head, rest, _ := strings.Cut(got.Body, "[... ")
	_, tail, _ := strings.Cut(rest, " ...]\n")
	total := utf8.RuneCountInString(all.String())
	kept := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
	if kept > 100 {
		t.Fatalf("kept %d characters, bound 100", kept)
	}
	wantGap := output.Commas(int64(total-kept)) + " characters"
	if !strings.HasPrefix(rest, wantGap) || !strings.Contains(rest, " left out ...]") {
		t.Fatalf("gap notice %q, want %q of %d", rest, wantGap, total)
	}
	if !strings.HasPrefix(all.String(), head) || !strings.HasSuffix(all.String(), tail) {
		t.Fatal("head or tail is not the output's own")
	}
}

func TestCaptureUnderBoundKeepsAll(t *testing.T) {
	c := newCapture(100, t.TempDir())
	c.write([]byte("short"))
	if got := c.finish(); got.Body != "short" || got.Truncated || got.SpillPath != "" {
		t.Fatalf("%+v", got)
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 14888896: "14,888,896"} {
		if got := output.Commas(n); got != want {
			t.Errorf("Commas(%d) = %q", n, got)
		}
	}
}

// Issue 16: a shell keeps one capture and cleaner for its life. Whatever
// state one stretch of output ends in (an open escape sequence, half a
// character, a line being overwritten, a long line's buffers), the next
// stretch starts clean, and a discarded stretch leaves nothing behind.
func TestCaptureNextStretchStartsClean(t *testing.T) {
	c := newCapture(100, t.TempDir())
	c.write([]byte("a\rb\x1b]0;title"))
	if got := c.finish(); got.Body != "b" {
		t.Fatalf("first stretch %q", got.Body)
	}
	c.write([]byte("next\n"))
	if got := c.finish(); got.Body != "next\n" || got.InvalidUTF8 != 0 {
		t.Fatalf("after an open escape sequence: %+v", got)
	}
	c.write([]byte("x\xc3"))
	if got := c.finish(); got.Body != "x\uFFFD" || got.InvalidUTF8 != 1 {
		t.Fatalf("half a character at the end: %+v", got)
	}
	c.write([]byte("y"))
	if got := c.finish(); got.Body != "y" || got.InvalidUTF8 != 0 {
		t.Fatalf("after half a character: %+v", got)
	}
	c.write([]byte(strings.Repeat("z", 50000) + "\x1b[1"))
	c.discard()
	if cap(c.clean.line) > keptLine || cap(c.clean.out) > 4*keptLine {
		t.Fatalf("a discarded long line's buffers are kept: %d runes, %d bytes", cap(c.clean.line), cap(c.clean.out))
	}
	c.write([]byte("m"))
	if got := c.finish(); got.Body != "m" || got.Truncated || got.SpillPath != "" {
		t.Fatalf("after a discarded stretch: %+v", got)
	}
}
