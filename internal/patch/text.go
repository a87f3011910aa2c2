package patch

import (
	"bytes"
)

var (
	bom = []byte{0xEF, 0xBB, 0xBF}
	nl  = []byte{'\n'}
)

// doc is a file's content seen as lines, without copying: line i is
// data[starts[i]:starts[i+1]], its ending included. A byte order mark is
// kept aside so that it stays in front whatever happens to the first line.
type doc struct {
	bom     []byte
	data    []byte
	starts  []int
	eol     []byte // the ending new lines get
	finalNL bool   // the file is empty or ends with a newline
	scopes  map[int]int
}

func newDoc(data []byte, patchCRLF bool) *doc {
	d := &doc{}
	if bytes.HasPrefix(data, bom) {
		d.bom, data = data[:len(bom)], data[len(bom):]
	}
	d.data = data
	d.starts = make([]int, 0, bytes.Count(data, nl)+2)
	for off := 0; off < len(data); {
		d.starts = append(d.starts, off)
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	d.starts = append(d.starts, len(data))
	d.finalNL = len(data) == 0 || data[len(data)-1] == '\n'
	switch i := bytes.IndexByte(data, '\n'); {
	case i > 0 && data[i-1] == '\r':
		d.eol = []byte("\r\n")
	case i >= 0:
		d.eol = nl
	default:
		d.eol = []byte(eolOf(patchCRLF))
	}
	return d
}

// n returns the number of lines; a final newline does not start another.
func (d *doc) n() int { return len(d.starts) - 1 }

// raw returns line i with its ending.
func (d *doc) raw(i int) []byte { return d.data[d.starts[i]:d.starts[i+1]] }

// text returns line i without its ending (\n or \r\n). A \r not followed
// by \n is part of the line.
func (d *doc) text(i int) []byte {
	l := d.raw(i)
	if n := len(l); n > 0 && l[n-1] == '\n' {
		l = l[:n-1]
		if n := len(l); n > 0 && l[n-1] == '\r' {
			l = l[:n-1]
		}
	}
	return l
}

// HunkInfo says how one hunk was applied.
type HunkInfo struct {
	// Line is the 1-based line of the new file where the hunk's first
	// change is: its first added line, or the line that now follows its
	// first removed one.
	Line int
	// Match is the level at which the hunk's lines matched.
	Match Match
	// Added and Removed count the hunk's + and - lines.
	Added, Removed int
}

// UpdateText applies the hunks of an updated file to data, its current
// content, and returns the new content. path is used in errors only.
// crlf says whether the patch used CRLF, which decides the ending of
// added lines in a file that has no line ending yet. Nothing in data is
// modified.
func UpdateText(path string, data []byte, hunks []Hunk, crlf bool) ([]byte, []HunkInfo, error) {
	d := newDoc(data, crlf)
	places := make([]placed, 0, len(hunks))
	cursor := 0
	for k, h := range hunks {
		pl, err := d.place(h, cursor)
		if err != nil {
			err.Path, err.Hunk, err.First = path, k+1, firstLine(h)
			return nil, nil, err
		}
		places = append(places, pl)
		cursor = pl.end
	}
	out, info := d.assemble(places)
	return out, info, nil
}

// assemble writes the new file: old lines up to each hunk copied as they
// are, each hunk's unchanged lines as the file has them, its added lines
// with the file's line ending. A last line without a newline gets one
// when lines follow it; the file ends without a newline if it did before.
func (d *doc) assemble(places []placed) ([]byte, []HunkInfo) {
	out := make([]byte, 0, len(d.bom)+len(d.data)+1024)
	out = append(out, d.bom...)
	base := len(out)
	tail := 0 // length of the ending of the last line written, 0 if it has none
	ended := func() {
		if len(out) > base && tail == 0 {
			out = append(out, d.eol...)
			tail = len(d.eol)
		}
	}
	copyOld := func(from, to int) { // old lines [from, to)
		ended()
		out = append(out, d.data[d.starts[from]:d.starts[to]]...)
		tail = len(d.raw(to-1)) - len(d.text(to-1))
	}
	info := make([]HunkInfo, len(places))
	prev, written := 0, 0
	for k, pl := range places {
		if pl.at > prev {
			copyOld(prev, pl.at)
			written += pl.at - prev
		}
		j := pl.at
		for _, l := range pl.lines {
			if l.Kind != ' ' && info[k].Line == 0 {
				info[k].Line = written + 1
			}
			switch l.Kind {
			case ' ':
				copyOld(j, j+1)
				j++
				written++
			case '-':
				j++
				info[k].Removed++
			case '+':
				ended()
				out = append(out, l.Text...)
				out = append(out, d.eol...)
				tail = len(d.eol)
				written++
				info[k].Added++
			}
		}
		info[k].Match = pl.match
		prev = pl.end
	}
	if prev < d.n() {
		copyOld(prev, d.n())
	}
	// A file without a final newline keeps having none, unless its new
	// last line is empty: an empty last line exists only with a line
	// ending after it.
	if !d.finalNL && tail > 0 && len(out)-tail > base && out[len(out)-tail-1] != '\n' {
		out = out[:len(out)-tail]
	}
	return out, info
}
