package editor

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/fileio"
)

// noteReserve is the part of the output budget kept for the closing notes,
// so that the notes never push a result over the limit. All notes of one
// view together stay below it (TestNotesFitReserve).
const noteReserve = 700

func (t *tool) view(ctx context.Context, path string, rng []int) (*tools.Result, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, statErr(path, err)
	}
	if fi.IsDir() {
		return t.viewDir(ctx, path, rng)
	}
	f, err := fileio.OpenRegularRead(path, path, fi)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A small file gets a buffer its size (plus one byte, so the first read
	// already sees end of file) instead of a full scan buffer to zero.
	size := scanBufSize
	if fi.Size() < int64(size) {
		size = max(int(fi.Size())+1, minScanBuf)
	}
	return t.viewFile(ctx, path, newScannerSize(f, size), rng, fi.Size())
}

// viewFile prints the requested lines of a file in one pass: it skips to
// the first line, numbers lines until the range or the budget ends, works
// out the next range that would fit (so the note can name it exactly), then
// reads on only to count the lines.
//
// size is the file's size as a stat saw it: the numbered text of a small
// file starts in a buffer near its size rather than one for the whole
// output budget (a no-op view is the cheapest call there is; issue 16).
func (t *tool) viewFile(ctx context.Context, path string, s *scanner, rng []int, size int64) (*tools.Result, error) {
	s.sniff(sniffBytes)
	if s.nul {
		return nil, binaryViewErr(path, t.shell)
	}
	start, end := 1, -1
	if rng != nil {
		start, end = rng[0], rng[1]
	}
	budget := t.maxOut - noteReserve
	if t.viewChars > 0 {
		// The lines shown, less the newline of the last, are at most
		// viewChars characters.
		budget = t.viewChars + 1
	}
	keep := 4*budget + 4 // a line longer than this cannot fit: a character is at most 4 bytes
	capacity := min(t.maxOut, 64<<10) + 64
	if size >= 0 && size < int64(capacity)/2 {
		capacity = 2*int(size) + 64 // room for the numbers of short lines; append grows it for the rest
	}
	w := &numberer{buf: make([]byte, 0, capacity), budget: budget, shell: t.shell}
	s.skip(ctx, start-1)

	n, nextStart, nextEnd := start, 0, 0
	for end == -1 || n <= end {
		line, ended, full, ok := s.next(keep)
		if !ok {
			break
		}
		if n == 1 && len(line) >= len(bom) && string(line[:len(bom)]) == string(bom) {
			line, full = line[len(bom):], full-len(bom)
		}
		if full <= keep && w.add(n, line, ended) {
			n++
			continue
		}
		if w.first == 0 { // the first line alone is too long: show its start
			w.addCut(n, line, ended, full)
			n++
			if end != -1 && n > end {
				break
			}
			if line, ended, full, ok = s.next(keep); !ok {
				break
			}
		}
		nextStart = n
		nextEnd = t.nextPage(ctx, s, n, end, line, ended, full, keep, budget)
		break
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.drain(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, pathErr("read", path, s.err)
	}
	if s.nul {
		return nil, binaryViewErr(path, t.shell)
	}
	total := s.lines()
	if total == 0 {
		if rng != nil {
			return nil, fmt.Errorf("view_range [%d, %d] is out of range: %s is empty (0 lines)", start, end, path)
		}
		return &tools.Result{Text: "[empty file: 0 lines]", Structured: viewFacts(path, 0, 0, 0, false)}, nil
	}
	if start > total {
		return nil, fmt.Errorf("view_range start %d is past the end of %s, which has %d lines", start, path, total)
	}
	notes := append(rangeNotes(rng != nil, end, w.first, w.last, total, nextStart, nextEnd), w.notes()...)
	text := string(w.buf)
	if len(notes) > 0 {
		text += strings.Join(notes, "\n")
	} else {
		text = strings.TrimSuffix(text, "\n")
	}
	return &tools.Result{Text: text, Structured: viewFacts(path, w.first, w.last, total, nextStart != 0 || w.cutLine != 0)}, nil
}

// rangeNotes says which lines were shown, when that is not simply the
// whole file: a clamped end, the next range after a cut, or the range asked
// for.
func rangeNotes(ranged bool, end, first, last, total, nextStart, nextEnd int) []string {
	var notes []string
	if end > total {
		notes = append(notes, fmt.Sprintf("[view_range end %d is past the last line; showing lines %d-%d of %d]", end, first, last, total))
	}
	switch {
	case nextStart != 0:
		notes = append(notes, fmt.Sprintf("[output limit reached: showing lines %d-%d of %d; view_range [%d, %d] shows the next part]", first, last, total, nextStart, nextEnd))
	case ranged && end <= total:
		notes = append(notes, fmt.Sprintf("[lines %d-%d of %d]", first, last, total))
	}
	return notes
}

// nextPage works out how far a view starting at line n would get with the
// same budget, given line n already read. It returns the last line of that
// view, at least n, and at most end when end is set.
func (t *tool) nextPage(ctx context.Context, s *scanner, n, end int, line []byte, ended bool, full, keep, budget int) int {
	last := n
	for ctx.Err() == nil {
		if full > keep {
			return last // a line too long to fit ends a page
		}
		text, _, _ := display(line, ended)
		if budget -= cost(n, text); budget < 0 {
			return max(last, n-1)
		}
		last = n
		n++
		if end != -1 && n > end {
			return last
		}
		var ok bool
		if line, ended, full, ok = s.next(keep); !ok {
			return last
		}
	}
	return last
}

func viewFacts(path string, first, last, total int, truncated bool) map[string]any {
	return map[string]any{"path": path, "firstLine": first, "lastLine": last, "totalLines": total, "truncated": truncated}
}

func binaryViewErr(path, shell string) error {
	return fmt.Errorf("%s looks like a %w (it contains NUL bytes), so it is not shown; use %s (file, xxd, strings) to inspect it", path, errBinary, shell)
}
