package editor

import (
	"bytes"
	"runtime/debug"
	"sort"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// checkPiece is the size of the pieces the text check of a large file
// reads: small enough to stay in the cache while each is scanned three
// times (NUL bytes, UTF-8, newlines), so the file comes from memory once.
const checkPiece = 64 << 10

// lineMarks are the newline counts the text check of a large file takes
// on its way through it, so the plan, which runs beside the check, finds
// the line of its match without counting the file up to there again (a
// third pass over it, after the search: 5 ms of a 35 MB edit, issue 16).
type lineMarks struct {
	done  chan struct{} // closed when the check has ended, however it ended
	ends  []int         // where each piece checked so far ends, ascending
	lines []int         // newlines in data[:ends[i]]
	whole bool          // the check went through the whole file
}

func newLineMarks() *lineMarks { return &lineMarks{done: make(chan struct{})} }

// lineOf is lineOf(data, off) from the marks, once the check has ended; it
// counts itself when the check stopped early.
func (m *lineMarks) lineOf(data []byte, off int) int {
	<-m.done
	if !m.whole {
		return lineOf(data, off)
	}
	off = max(off, 0)
	k := sort.Search(len(m.ends), func(k int) bool { return m.ends[k] > off }) // pieces [0, k) end at or before off
	base, from := 0, 0
	if k > 0 {
		base, from = m.lines[k-1], m.ends[k-1]
	}
	return base + bytes.Count(data[from:off], nl) + 1
}

// checkMarking is fileio.CheckText for a large file, on a goroutine of its
// own, noting line marks as it goes. The pieces end where a character
// starts (a piece that would end inside one takes its rest; four
// continuation bytes in a row are bad UTF-8 anyway), so each is valid
// UTF-8 exactly when the file is there; at the
// first bad piece the refusal comes from fileio.CheckText on the whole
// file, with its wording and line number. A fault in lf's mapping becomes
// the refusal CatchFault makes of it.
func checkMarking(lf *fileio.Locked, path, shell string, data []byte, m *lineMarks) error {
	return checkPieces(lf, path, shell, data, m, checkPiece)
}

// checkPieces is checkMarking with pieces of about size bytes (tests and
// the fuzz target use small ones).
func checkPieces(lf *fileio.Locked, path, shell string, data []byte, m *lineMarks, size int) (err error) {
	defer close(m.done)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer lf.CatchFault(&err, path)
	lines := 0
	m.ends = make([]int, 0, len(data)/size+1)
	m.lines = make([]int, 0, len(data)/size+1)
	for off := 0; off < len(data); {
		end := min(off+size, len(data))
		for fwd := 0; fwd < utf8.UTFMax-1 && end < len(data) && !runeStart(data[end]); fwd++ {
			end++ // to the start of the next character
		}
		piece := data[off:end]
		if end < len(data) && !runeStart(data[end]) || bytes.IndexByte(piece, 0) >= 0 || !utf8.Valid(piece) {
			// Four continuation bytes in a row, a NUL byte or bad UTF-8.
			return fileio.CheckText(path, shell, data)
		}
		lines += bytes.Count(piece, nl)
		m.ends = append(m.ends, end)
		m.lines = append(m.lines, lines)
		off = end
	}
	m.whole = true
	return nil
}
