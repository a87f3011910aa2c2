package editor

import (
	"bytes"
	"fmt"
)

// countLines returns the number of lines in data; a final newline does not
// start another line.
func countLines(data []byte) int {
	n := bytes.Count(data, nl)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// planInsert returns the change that inserts text as whole lines after line
// `after` (0 = before the first line). One trailing newline of text ends its
// last line rather than adding a blank one. The text takes the file's line
// ending. After a last line without a final newline the text is joined with
// a line ending first, and the file still ends without one (unless the
// inserted text ends with an empty line, which needs one); a byte order
// mark stays in front.
func planInsert(data []byte, after int, text string, path string) (change, error) {
	total := countLines(data)
	if after > total {
		return change{}, fmt.Errorf("insert_line %d is past the end of %s, which has %d %s; use %d to append after the last line (0 inserts before the first)",
			after, path, total, plural(total, "line", "lines"), total)
	}
	eol := fileEOL(data)
	body := toEOL([]byte(text), eol)
	body = bytes.TrimSuffix(body, eol)
	var off int
	var ins []byte
	switch {
	case after == 0:
		if bytes.HasPrefix(data, bom) {
			off = len(bom)
		}
		ins = concat(body, eol)
	case after == total && data[len(data)-1] != '\n':
		off = len(data)
		ins = concat(eol, body)
		if len(body) == 0 || bytes.HasSuffix(body, eol) {
			// An empty last line exists only with a line ending after it,
			// so here the file gains a final newline.
			ins = append(ins, eol...)
		}
	default:
		off = lineStart(data, after)
		ins = concat(body, eol)
	}
	line := after + 1 // the line holding off: the first new one, or the last old one when appending to it
	if off == len(data) && len(data) > 0 && data[len(data)-1] != '\n' {
		line = after
	}
	return change{start: off, end: off, text: ins, startLine: line, firstLine: after + 1}, nil
}

// lineStart returns the offset just after the n-th newline (n ≥ 1).
func lineStart(data []byte, n int) int {
	off := 0
	for ; n > 0; n-- {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	return off
}

func concat(a, b []byte) []byte {
	out := make([]byte, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}
