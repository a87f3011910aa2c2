package output

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// Finish ends a command's captures and cuts them to maxChars characters
// together: a section that fits in an even share keeps all of it and the
// others share the rest. A section cut to its share keeps its first 40% and
// last 60% (on line boundaries where one is near) around a note of what was
// left out. When anything was cut, the whole output goes to one spill
// file: each section's bytes, the later ones after their labels. The
// captures must not be written to afterwards.
func Finish(maxChars int, sections ...Section) Text {
	var t Text
	sizes := make([]int64, len(sections))
	for i, s := range sections {
		s.Capture.flush()
		sizes[i] = s.Capture.chars
		t.InvalidUTF8 += s.Capture.invalid
	}
	shares := budget(int64(max(maxChars, 0)), sizes)
	var b strings.Builder
	for i, s := range sections {
		c := s.Capture
		if s.Label != "" {
			if c.total == 0 {
				continue
			}
			endLine(&b)
			b.WriteString(s.Label + "\n")
		}
		text, cut := c.cut(shares[i])
		t.Truncated = t.Truncated || cut
		b.WriteString(text)
	}
	t.Body = b.String()
	if t.Truncated {
		t.SpillPath, t.SpillErr = saveSpill(sections)
	}
	for _, s := range sections {
		s.Capture.Discard() // what saveSpill did not take
	}
	return t
}

// Remove deletes the spill file of a text that will never be shown.
func (t Text) Remove() {
	if t.SpillPath != "" {
		_ = os.Remove(t.SpillPath) // best effort
	}
}

// budget splits limit characters between sections of the given sizes: one
// that fits in an even share of what is left keeps all of it, the rest
// share the remainder evenly (the first ones get a character more when it
// does not divide).
func budget(limit int64, sizes []int64) []int64 {
	shares := make([]int64, len(sizes))
	settled := make([]bool, len(sizes))
	left, open := limit, len(sizes)
	for open > 0 {
		even := left / int64(open)
		progress := false
		for i, n := range sizes {
			if !settled[i] && n <= even {
				shares[i], settled[i] = n, true
				left -= n
				open--
				progress = true
			}
		}
		if progress {
			continue
		}
		extra := left - even*int64(open)
		for i := range sizes {
			if !settled[i] {
				shares[i], settled[i] = even, true
				if extra > 0 {
					shares[i]++
					extra--
				}
			}
		}
		open = 0
	}
	return shares
}

// cut returns the capture's text cut to n characters, and whether it was.
func (c *Capture) cut(n int64) (string, bool) {
	if !c.spilled && c.chars <= n {
		return string(c.buf), false
	}
	head, tail := c.head, c.tail
	if !c.spilled {
		head, tail = c.buf, c.buf
	}
	headN := n * 2 / 5
	head = cutAtLastNewline(prefixRunes(head, int(headN)))
	tail = cutAfterFirstNewline(suffixRunes(tail, int(n-headN)))
	gapChars := c.chars - int64(utf8.RuneCount(head)) - int64(utf8.RuneCount(tail))
	gapLines := c.lines - int64(bytes.Count(head, newline)) - int64(bytes.Count(tail, newline))
	var b strings.Builder
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %s left out ...]\n", countText(gapChars, gapLines))
	b.Write(tail)
	return b.String(), true
}

// saveSpill writes the whole output to one file: the first section's
// spill file when it has one, with the later sections appended after their
// labels. It returns the file's path; on failure no partial file is left.
func saveSpill(sections []Section) (path string, err error) {
	first := sections[0].Capture
	for _, s := range sections {
		if s.Capture.spillErr != nil {
			return "", s.Capture.spillErr
		}
	}
	out := first.spill
	first.spill = nil
	if out == nil {
		if out, err = createSpill(first.opts.SpillDir, first.opts.SpillPrefix); err != nil {
			return "", err
		}
		out.write(first.rawSoFar())
	}
	defer func() {
		if err != nil {
			out.remove() // a partial file misleads
		}
	}()
	for i, s := range sections {
		c := s.Capture
		if i == 0 || c.total == 0 {
			continue
		}
		out.endSection()
		out.note(s.Label)
		if c.spill != nil {
			err = out.copyFrom(c.spill)
			c.Discard()
			if err != nil {
				return "", err
			}
		} else {
			out.write(c.rawSoFar())
		}
	}
	out.endSection()
	if err = out.finish(); err != nil {
		return "", err
	}
	return out.f.Name(), nil
}

// endLine ends the builder's last line unless it is empty or ended.
func endLine(b *strings.Builder) {
	if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// cutAtLastNewline ends a head after a whole line when one ends in its
// second half, so the note does not split a line.
func cutAtLastNewline(b []byte) []byte {
	if i := bytes.LastIndexByte(b, '\n'); i >= len(b)/2 {
		return b[:i+1]
	}
	return b
}

// cutAfterFirstNewline starts a tail at a line start when one begins in
// its first half.
func cutAfterFirstNewline(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)/2 {
		return b[i+1:]
	}
	return b
}

// countText says how much was left out: "1,234 characters (56 lines)".
func countText(chars, lines int64) string {
	s := Commas(chars) + " characters"
	if chars == 1 {
		s = "1 character"
	}
	switch lines {
	case 0:
		return s
	case 1:
		return s + " (1 line)"
	}
	return s + " (" + Commas(lines) + " lines)"
}

// Commas formats n with thousands separators, for counts a reader must
// take in at a glance.
func Commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
