package editor

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
)

// Bounds on the work and the text of a no-match diagnosis.
const (
	maxAnchorHits   = 1000 // occurrences of an anchor line examined
	maxCandidates   = 3    // file places compared with old_str
	maxAnchorLines  = 20   // lines of old_str tried as anchors
	hintQuoteLength = 120
)

// diagnose explains why old_str matched nothing: a pasted line-number
// prefix, a whitespace or tab/space difference, or the first line where
// old_str and the closest place in the file part ways.
func diagnose(data []byte, oldStr string) string {
	if h := numberPrefixHint(data, oldStr); h != "" {
		return h
	}
	oldLines := strings.Split(strings.ReplaceAll(oldStr, "\r\n", "\n"), "\n")
	best := placeMatch{depth: -1}
	tried := 0
	for j, l := range oldLines {
		key := strings.TrimSpace(l)
		if key == "" {
			continue
		}
		if tried++; tried > maxAnchorLines {
			break
		}
		for _, ls := range anchorLines(data, key) {
			if m := comparePlace(data, ls, j, oldLines); m.depth > best.depth {
				best = m
			}
		}
		if best.depth >= 0 {
			break
		}
	}
	switch {
	case best.depth < 0:
		return "hint: no line of old_str occurs in the file; it may have changed since you last viewed it. View it again and copy the text exactly"
	case best.depth == len(oldLines) && best.crlf > 0 && best.lf > 0:
		return fmt.Sprintf("hint: old_str matches line %d onwards except for line endings: the file mixes CRLF and LF there (%d CRLF, %d LF), and old_str must match them exactly. Use \\r\\n where the file has CRLF, or replace fewer lines at a time",
			best.line, best.crlf, best.lf)
	case best.depth == len(oldLines):
		return fmt.Sprintf("hint: old_str matches line %d onwards if whitespace is ignored, so only whitespace differs: %s. Copy the lines exactly as view shows them; tabs appear as real tab characters",
			best.line, whitespaceKind(best))
	}
	m := best.depth
	return fmt.Sprintf("hint: the closest place starts on line %d, but line %d of old_str differs from line %d of the file:\n  old_str: %s\n  file:    %s",
		best.line, m+1, best.line+m, quoteCut(oldLines[m], hintQuoteLength), quoteCut(best.mismatch, hintQuoteLength))
}

// placeMatch is how far old_str agrees with the file from one place on.
type placeMatch struct {
	line      int      // file line where old_str's first line would be
	depth     int      // lines of old_str that agree, ignoring whitespace
	mismatch  string   // the file line where they stop agreeing
	fileLines []string // the file lines compared
	oldLines  []string // the lines of old_str
	crlf, lf  int      // endings of the compared lines that old_str spans
}

// anchorLines returns the start offsets of up to maxCandidates lines of data
// that contain key.
func anchorLines(data []byte, key string) []int {
	var out []int
	k := []byte(key)
	for i, hits := 0, 0; i < len(data) && hits < maxAnchorHits && len(out) < maxCandidates; hits++ {
		j := bytes.Index(data[i:], k)
		if j < 0 {
			break
		}
		ls := bytes.LastIndexByte(data[:i+j], '\n') + 1
		if len(out) == 0 || out[len(out)-1] != ls {
			out = append(out, ls)
		}
		i += j + len(k)
	}
	return out
}

// comparePlace lines up old_str so that its line j sits on the file line
// starting at ls, and compares line by line with whitespace ignored. The
// first and last lines of old_str may be parts of lines.
func comparePlace(data []byte, ls, j int, oldLines []string) placeMatch {
	start := ls
	for k := 0; k < j; k++ {
		if start == 0 {
			return placeMatch{depth: -1}
		}
		start = bytes.LastIndexByte(data[:start-1], '\n') + 1
	}
	m := placeMatch{line: lineOf(data, start), oldLines: oldLines}
	off := start
	for i, ol := range oldLines {
		if off > len(data) || (off == len(data) && i > 0 && ol != "") {
			m.mismatch = "(end of file)"
			return m
		}
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		fl := string(bytes.TrimSuffix(data[off:off+end], []byte{'\r'}))
		if !sameIgnoringSpace(fl, ol, i == 0, i == len(oldLines)-1) {
			m.mismatch = fl
			return m
		}
		m.fileLines = append(m.fileLines, fl)
		if i < len(oldLines)-1 && off+end < len(data) { // a line break inside old_str
			if end > 0 && data[off+end-1] == '\r' {
				m.crlf++
			} else {
				m.lf++
			}
		}
		m.depth = i + 1
		off += end + 1
	}
	return m
}

func sameIgnoringSpace(fileLine, oldLine string, first, last bool) bool {
	f, o := squash(fileLine), squash(oldLine)
	switch {
	case first && last:
		return strings.Contains(f, o)
	case first:
		return strings.HasSuffix(f, o)
	case last:
		return strings.HasPrefix(f, o)
	}
	return f == o
}

// squash drops leading and trailing white space and folds inner runs to one
// space.
func squash(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// whitespaceKind names the whitespace difference between lines that agree
// once whitespace is ignored.
func whitespaceKind(m placeMatch) string {
	tabsInFile, tabsInOld, indent, trailing := false, false, false, false
	for i, fl := range m.fileLines {
		ol := m.oldLines[i]
		fi, oi := leadingSpace(fl), leadingSpace(ol)
		if i > 0 || len(oi) > 0 { // the first line of old_str may start mid-line
			switch {
			case strings.Contains(fi, "\t") && !strings.Contains(oi, "\t") && oi != "":
				tabsInFile = true
			case strings.Contains(oi, "\t") && !strings.Contains(fi, "\t") && fi != "":
				tabsInOld = true
			case fi != oi:
				indent = true
			}
		}
		if strings.TrimRightFunc(fl, unicode.IsSpace) != fl || strings.TrimRightFunc(ol, unicode.IsSpace) != ol {
			trailing = trailing || len(fl)-len(strings.TrimRightFunc(fl, unicode.IsSpace)) != len(ol)-len(strings.TrimRightFunc(ol, unicode.IsSpace))
		}
	}
	switch {
	case tabsInFile:
		return "the file indents with tabs where old_str has spaces"
	case tabsInOld:
		return "old_str has tabs where the file indents with spaces"
	case indent:
		return "the indentation differs"
	case trailing:
		return "trailing whitespace differs"
	}
	return "spacing within lines differs"
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))]
}

// numberPrefixHint spots an old_str whose lines start with view's line
// numbers ("    12\t"), and says whether old_str matches without them.
func numberPrefixHint(data []byte, oldStr string) string {
	lines := strings.Split(oldStr, "\n")
	first := ""
	stripped := make([]string, len(lines))
	found := 0
	for i, l := range lines {
		rest, ok := cutNumberPrefix(l)
		if ok {
			found++
			if first == "" {
				first = l[:len(l)-len(rest)]
			}
		}
		stripped[i] = rest
	}
	if found == 0 || found*2 < len(lines) {
		return ""
	}
	msg := fmt.Sprintf("hint: old_str seems to include line numbers copied from view output (such as %q); they are not part of the file, so leave them out", first)
	joined := []byte(strings.Join(stripped, "\n"))
	for _, v := range variants(joined) {
		if n, starts := findAll(data, v, 1, false); n == 1 {
			return msg + fmt.Sprintf(". Without them old_str matches at line %d", lineOf(data, starts[0]))
		} else if n > 1 {
			return msg + fmt.Sprintf(". Without them old_str matches %d places", n)
		}
	}
	return msg
}

// cutNumberPrefix removes a leading "  12\t" or "12→" from a line.
func cutNumberPrefix(l string) (string, bool) {
	s := strings.TrimLeft(l, " ")
	d := 0
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d == 0 || d == len(s) {
		return l, false
	}
	switch rest := s[d:]; {
	case rest[0] == '\t':
		return rest[1:], true
	case strings.HasPrefix(rest, "→"):
		return rest[len("→"):], true
	}
	return l, false
}
