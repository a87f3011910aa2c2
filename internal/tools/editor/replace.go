package editor

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// maxListedMatches bounds the line numbers an ambiguity error lists.
const maxListedMatches = 10

var crlf = []byte("\r\n")

// change replaces data[start:end] with text. Every other byte of data is
// written back unchanged.
type change struct {
	start, end int
	text       []byte
	// startLine is the line holding start; firstLine is the first line (of
	// the new file) whose text differs. Counting lines is a pass over the
	// file, so it is done once, here.
	startLine, firstLine int
}

// planReplace finds the one place old occurs in data and returns the
// change that puts new there. The match is literal, on bytes; matches may
// overlap and all of them count. When old as given does not occur, its
// line endings are tried in the other style (LF for CRLF and back), since a
// model writes plain newlines for a CRLF file it saw without the \r. new
// is written with the line endings of the matched text.
func planReplace(data []byte, oldStr, newStr string, path string) (change, error) {
	return planReplaceLines(data, oldStr, newStr, path, func(off int) int { return lineOf(data, off) })
}

// planReplaceLines is planReplace with the line of an offset given by
// lines (see lineMarks).
func planReplaceLines(data []byte, oldStr, newStr string, path string, lines func(off int) int) (change, error) {
	var pat []byte
	var count int
	var starts []int
	// Matches that would split a CRLF ending are a last resort (see
	// findAll): an old_str ending in a lone \r may mean just that.
search:
	for _, whole := range []bool{true, false} {
		for _, v := range variants([]byte(oldStr)) {
			if count, starts = findAll(data, v, maxListedMatches, whole); count > 0 {
				pat = v
				break search
			}
		}
	}
	switch {
	case count == 0:
		return change{}, fmt.Errorf("%w in %s; the file was not changed\nold_str: %s\n%s",
			errNoMatch, path, quoteCut(oldStr, 300), diagnose(data, oldStr))
	case count > 1:
		return change{}, fmt.Errorf("%w: it occurs %d times in %s, starting on %s%s. Add surrounding lines to old_str so that it matches one place only; the file was not changed",
			errManyMatches, count, path, listLines(data, starts, count), overlapNote(starts, len(pat)))
	}
	start := starts[0]
	text := toEOL([]byte(newStr), eolOf(pat, data))
	if bytes.Equal(text, pat) {
		return change{}, fmt.Errorf("old_str and new_str differ only in line endings, which the edit would match to the file's; there is nothing to change")
	}
	same := commonPrefix(pat, text)
	line := lines(start)
	return change{
		start: start, end: start + len(pat), text: text,
		startLine: line, firstLine: line + bytes.Count(text[:same], nl),
	}, nil
}

// variants returns old as given, then with LF and with CRLF line endings,
// leaving out duplicates.
func variants(old []byte) [][]byte {
	out := [][]byte{old}
	if bytes.IndexByte(old, '\n') < 0 {
		return out
	}
	lf := bytes.ReplaceAll(old, crlf, nl)
	if !bytes.Equal(lf, old) {
		out = append(out, lf)
	}
	if cr := bytes.ReplaceAll(lf, nl, crlf); !bytes.Equal(cr, old) {
		out = append(out, cr)
	}
	return out
}

// findAll counts the occurrences of pat in data, overlapping ones included,
// and returns the offsets of the first keep of them. With whole, an
// occurrence that begins or ends between the \r and the \n of a CRLF line
// ending does not count: replacing it would leave half an ending behind,
// and the CRLF variant of pat (see variants) matches the whole ending.
func findAll(data, pat []byte, keep int, whole bool) (count int, starts []int) {
	f := newFinder(pat, data)
	for i := 0; i <= len(data); {
		j := f.index(data[i:])
		if j < 0 {
			break
		}
		if at := i + j; !whole || !splitsCRLF(data, at) && !splitsCRLF(data, at+len(pat)) {
			if count < keep {
				starts = append(starts, at)
			}
			count++
		}
		i += j + 1
	}
	return count, starts
}

// splitsCRLF tells whether offset off of data lies between a \r and a \n.
func splitsCRLF(data []byte, off int) bool {
	return off > 0 && off < len(data) && data[off-1] == '\r' && data[off] == '\n'
}

// eolOf picks the line ending new text should use: that of the matched
// text when it spans lines, else the file's.
func eolOf(matched, data []byte) []byte {
	switch {
	case bytes.Contains(matched, crlf):
		return crlf
	case bytes.IndexByte(matched, '\n') >= 0:
		return nl
	}
	return fileEOL(data)
}

// fileEOL returns the ending of the file's first line; LF when it has none.
func fileEOL(data []byte) []byte {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return crlf
	}
	return nl
}

// toEOL rewrites every line ending of text to eol. A lone \r is left alone.
func toEOL(text, eol []byte) []byte {
	if bytes.IndexByte(text, '\n') < 0 {
		return text
	}
	lf := bytes.ReplaceAll(text, crlf, nl)
	if bytes.Equal(eol, crlf) {
		return bytes.ReplaceAll(lf, nl, crlf)
	}
	return lf
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// listLines names the starting lines of the first matches: "lines 3, 9 and
// 12", with repeats folded into "3 (2 matches)".
func listLines(data []byte, starts []int, count int) string {
	var parts []string
	line, off := 1, 0
	for i := 0; i < len(starts); {
		line += bytes.Count(data[off:starts[i]], nl)
		off = starts[i]
		j := i + 1
		for j < len(starts) && bytes.IndexByte(data[starts[i]:starts[j]], '\n') < 0 {
			j++
		}
		part := strconv.Itoa(line)
		if j-i > 1 {
			part += " (" + strconv.Itoa(j-i) + " matches)"
		}
		parts = append(parts, part)
		i = j
	}
	word := "lines "
	if len(parts) == 1 {
		word = "line "
	}
	if more := count - len(starts); more > 0 {
		return word + strings.Join(parts, ", ") + " and " + strconv.Itoa(more) + " more"
	}
	if len(parts) == 1 {
		return word + parts[0]
	}
	return word + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func overlapNote(starts []int, n int) string {
	for i := 1; i < len(starts); i++ {
		if starts[i] < starts[i-1]+n {
			return " (matches overlap: each start counts)"
		}
	}
	return ""
}
