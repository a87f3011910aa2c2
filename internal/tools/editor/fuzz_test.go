package editor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Input bounds for the fuzz targets.
const (
	maxFuzzFile = 8 << 10
	maxFuzzEdit = 1 << 10
)

// apply builds the new file the way modify writes it.
func apply(data []byte, c change) []byte {
	out := append([]byte{}, data[:c.start]...)
	out = append(out, c.text...)
	return append(out, data[c.end:]...)
}

func lfOnly(b []byte) []byte { return bytes.ReplaceAll(b, []byte{'\r'}, nil) }

// Issue 5: for random files and edits, a str_replace changes only the
// matched span, the span is a unique (overlap-aware) match of old_str or of
// old_str with its line endings switched, the new text is new_str up to
// line endings — and on a file with consistent line endings, the inverse
// str_replace restores the file exactly.
func FuzzStrReplace(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), "b", "B")
	f.Add([]byte("aaa"), "aa", "b")
	f.Add([]byte("x\r\ny\r\nz\r\n"), "x\ny", "p\nq\nr")
	f.Add([]byte("\xEF\xBB\xBFhead\ntail"), "tail", "end\n")
	f.Add([]byte("\tfoo\n\tbar\n"), "\tbar\n", "")
	f.Add([]byte("mixed\r\nends\nhere\r\n"), "ends\nhere", "x\r\ny")
	f.Fuzz(func(t *testing.T, data []byte, oldStr, newStr string) {
		if oldStr == "" || oldStr == newStr {
			return // refused before planning
		}
		if len(data) > maxFuzzFile || len(oldStr)+len(newStr) > maxFuzzEdit {
			return // small inputs find the bugs; the naive reference is quadratic
		}
		checkReplace(t, data, oldStr, newStr)
		// Consistent endings: LF everywhere, then CRLF everywhere.
		lf, o, n := lfOnly(data), string(lfOnly([]byte(oldStr))), string(lfOnly([]byte(newStr)))
		if o == "" || o == n {
			return
		}
		for _, d := range [][]byte{lf, bytes.ReplaceAll(lf, nl, crlf)} {
			out, ok := checkReplace(t, d, o, n)
			if !ok || n == "" || (bytes.Contains(d, nl) && !bytes.Contains(out, nl)) {
				continue // no inverse, or the edit removed every line ending, so the file's style is lost
			}
			c, err := planReplace(out, n, o, "f")
			if err != nil {
				continue // new_str is not unique in the result: no inverse
			}
			if back := apply(out, c); !bytes.Equal(back, d) {
				t.Fatalf("inverse did not restore the file:\nfile %q\nold %q new %q\nedited %q\nrestored %q", d, o, n, out, back)
			}
		}
	})
}

// checkReplace plans one str_replace and checks it; it returns the edited
// file when the plan succeeded.
func checkReplace(t *testing.T, data []byte, oldStr, newStr string) ([]byte, bool) {
	t.Helper()
	c, err := planReplace(data, oldStr, newStr, "f")
	vs := variants([]byte(oldStr))
	counts := make([]int, len(vs))
	first := -1 // the variant that should be used
	for _, whole := range []bool{true, false} {
		for i, v := range vs {
			counts[i] = naiveCount(data, v, whole)
		}
		for i, n := range counts {
			if n > 0 {
				first = i
				break
			}
		}
		if first >= 0 {
			break
		}
	}
	switch {
	case errors.Is(err, errNoMatch):
		if first >= 0 {
			t.Fatalf("no match reported, but variant %q occurs %d times in %q", vs[first], counts[first], data)
		}
		return nil, false
	case errors.Is(err, errManyMatches):
		if first < 0 || counts[first] < 2 {
			t.Fatalf("not unique reported for %q in %q (counts %v)", oldStr, data, counts)
		}
		return nil, false
	case err != nil:
		if !strings.Contains(err.Error(), "only in line endings") {
			t.Fatalf("unexpected error: %v", err)
		}
		return nil, false
	}
	if first < 0 || counts[first] != 1 || !bytes.Equal(data[c.start:c.end], vs[first]) {
		t.Fatalf("replaced %q at %d in %q, but counts are %v", data[c.start:c.end], c.start, data, counts)
	}
	// new_str with its line endings made LF or CRLF (rewriting c.text again
	// would not do: a line ending in \r is read as CRLF the second time).
	if !bytes.Equal(c.text, toEOL([]byte(newStr), nl)) && !bytes.Equal(c.text, toEOL([]byte(newStr), crlf)) {
		t.Fatalf("inserted %q for new_str %q", c.text, newStr)
	}
	out := apply(data, c)
	if !bytes.Equal(out[:c.start], data[:c.start]) || !bytes.Equal(out[c.start+len(c.text):], data[c.end:]) {
		t.Fatal("bytes outside the edited span changed")
	}
	if c.firstLine < lineOf(data, c.start) || c.firstLine > countLines(out)+1 {
		t.Fatalf("first changed line %d out of range", c.firstLine)
	}
	return out, true
}

// naiveCount counts overlapping occurrences the slow, obvious way, with
// whole leaving out those that begin or end inside a CRLF ending.
func naiveCount(data, pat []byte, whole bool) int {
	n := 0
	inCRLF := func(off int) bool { return off > 0 && off < len(data) && string(data[off-1:off+1]) == "\r\n" }
	for i := 0; i+len(pat) <= len(data); i++ {
		if bytes.Equal(data[i:i+len(pat)], pat) && (!whole || !inCRLF(i) && !inCRLF(i+len(pat))) {
			n++
		}
	}
	return n
}

// lineContents splits a file into lines without their '\n'; a final
// newline does not start another line.
func lineContents(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, nl)
	if data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Issue 5: insert puts new_str in as whole lines at a line boundary, the
// rest of the file is byte-for-byte kept, lines are never glued, and a file
// without a final newline still has none.
func FuzzInsert(f *testing.F) {
	f.Add([]byte("a\nb\n"), 1, "x")
	f.Add([]byte("a\nb"), 2, "x\n")
	f.Add([]byte("a\r\nb\r\n"), 0, "x\ny\n")
	f.Add([]byte("\xEF\xBB\xBFa"), 0, "x")
	f.Add([]byte(""), 0, "\n")
	f.Fuzz(func(t *testing.T, data []byte, line int, text string) {
		if len(data) > maxFuzzFile || len(text) > maxFuzzEdit {
			return
		}
		if text == "" || line < 0 || bytes.Equal(data, bom) {
			return // refused before planning; a lone BOM is an unterminated empty line
		}
		total := countLines(data)
		line %= total + 2
		c, err := planInsert(data, line, text, "f")
		if line > total {
			if err == nil {
				t.Fatalf("insert_line %d accepted for %d lines", line, total)
			}
			return
		}
		if err != nil {
			t.Fatalf("insert_line %d refused for %d lines: %v", line, total, err)
		}
		if c.start != c.end {
			t.Fatal("insert replaced bytes")
		}
		out := apply(data, c)
		if !bytes.Equal(out[:c.start], data[:c.start]) || !bytes.Equal(out[c.start+len(c.text):], data[c.end:]) {
			t.Fatal("bytes outside the insertion changed")
		}
		eol := fileEOL(data)
		body := bytes.TrimSuffix(toEOL([]byte(text), eol), eol)
		lastEmpty := len(body) == 0 || bytes.HasSuffix(body, fileEOL(data)) // needs a line ending after it
		if len(data) > 0 && (data[len(data)-1] == '\n') != (out[len(out)-1] == '\n') && !(line == total && lastEmpty) {
			t.Fatalf("final newline changed: %q -> %q", data, out)
		}
		if bytes.HasPrefix(data, bom) && !bytes.HasPrefix(out, bom) {
			t.Fatal("BOM moved")
		}
		// Line by line (after the BOM): the old lines around whole new lines.
		old := lineContents(bytes.TrimPrefix(data, bom))
		inserted := lineContents(concat(body, eol))
		if line == total && line > 0 && data[len(data)-1] != '\n' {
			// The unterminated last line gets the file's ending, and the
			// inserted lines end unterminated instead (unless the last is
			// empty); a CRLF's \r sits in the content as split here.
			old[line-1] = concat(old[line-1], eol[:len(eol)-1])
			if !lastEmpty {
				k := len(inserted) - 1
				inserted[k] = bytes.TrimSuffix(inserted[k], eol[:len(eol)-1])
			}
		}
		want := append([][]byte{}, old[:line]...)
		want = append(want, inserted...)
		want = append(want, old[line:]...)
		got := lineContents(bytes.TrimPrefix(out, bom))
		if len(got) != len(want) {
			t.Fatalf("%d lines after insert, want %d: %q", len(got), len(want), out)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d is %q, want %q (file %q)", i+1, got[i], want[i], out)
			}
		}
	})
}

var viewLineRE = regexp.MustCompile(`^ *(\d+)\t(.*)$`)

// View shows true line numbers, contiguous from the start of the range,
// each line as stored (without a CRLF's \r and a leading BOM), stays within
// the output limit and names the next range exactly — for any file, tiny
// scan buffers included.
func FuzzView(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 1, -1, 200, 8)
	f.Add([]byte("long line here\nx"), 2, 2, 100, 4)
	f.Add([]byte("\xEF\xBB\xBFa\r\nb\xff\r\n"), 1, 5, 300, 16)
	f.Fuzz(func(t *testing.T, data []byte, start, end, limit, bufSize int) {
		if len(data) > maxFuzzFile {
			return
		}
		limit = MinMaxOutputChars + abs(limit)%4000
		bufSize = 1 + abs(bufSize)%64
		var rng []int
		if start != 0 || end != 0 {
			start = 1 + abs(start)%(countLines(data)+2)
			if end != -1 {
				end = start + abs(end)%50
			}
			rng = []int{start, end}
		} else {
			start = 1
		}
		tl := &tool{maxOut: limit}
		res, err := tl.viewFile(context.Background(), "f", newScannerSize(bytes.NewReader(data), bufSize), rng, int64(len(data)))
		lines := lineContents(data)
		switch {
		case bytes.IndexByte(data, 0) >= 0:
			if err == nil || !errors.Is(err, errBinary) {
				t.Fatalf("binary file viewed: %v", err)
			}
			return
		case len(lines) == 0 && rng != nil, start > len(lines) && len(lines) > 0:
			if err == nil {
				t.Fatalf("range %v accepted for %d lines", rng, len(lines))
			}
			return
		case err != nil:
			t.Fatalf("view failed: %v", err)
		}
		if n := utf8.RuneCountInString(res.Text); n > limit {
			t.Fatalf("output has %d characters, limit %d", n, limit)
		}
		want := start
		for _, l := range strings.Split(res.Text, "\n") {
			if strings.HasPrefix(l, "[") && !viewLineRE.MatchString(l) {
				continue
			}
			m := viewLineRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("malformed line %q in\n%s", l, res.Text)
			}
			n, _ := strconv.Atoi(m[1])
			if n != want || n > len(lines) {
				t.Fatalf("line number %d, want %d (of %d)", n, want, len(lines))
			}
			src := lines[n-1]
			if n == 1 {
				src = bytes.TrimPrefix(src, bom)
			}
			shown, _, _ := display(src, n < len(lines) || data[len(data)-1] == '\n')
			if m[2] != string(shown) && !(res.Structured["truncated"] == true && strings.HasPrefix(string(shown), m[2])) {
				t.Fatalf("line %d shown as %q, stored as %q", n, m[2], src)
			}
			want++
		}
		if res.Structured["totalLines"] != len(lines) {
			t.Fatalf("totalLines %v, want %d", res.Structured["totalLines"], len(lines))
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}

// Issue 5, end to end on real files: after any str_replace the file is
// either exactly as before (refused) or exactly the planned splice, with
// its mode kept and no temporary file left.
func FuzzEditFile(f *testing.F) {
	f.Add([]byte("a\nb\n"), "b", "c")
	f.Add([]byte("caf\xe9\n"), "caf", "tea")
	f.Add([]byte("x\x00y"), "x", "z")
	f.Add([]byte("r\r\nn\r\n"), "r\nn", "s")
	tl := New(toolsHost(), toolsConfig(0))
	f.Fuzz(func(t *testing.T, data []byte, oldStr, newStr string) {
		if len(data) > maxFuzzFile || len(oldStr)+len(newStr) > maxFuzzEdit {
			return
		}
		// The arguments travel as JSON, which cannot carry invalid UTF-8.
		oldStr, newStr = strings.ToValidUTF8(oldStr, "\uFFFD"), strings.ToValidUTF8(newStr, "\uFFFD")
		dir := t.TempDir()
		p := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(p, data, 0o640); err != nil {
			t.Fatal(err)
		}
		res := run(t, tl, "", map[string]any{"command": "str_replace", "path": p, "old_str": oldStr, "new_str": newStr})
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			if !bytes.Equal(got, data) {
				t.Fatalf("refused edit changed the file: %s", res.Text)
			}
		} else {
			c, err := planReplace(data, oldStr, newStr, p)
			if err != nil {
				t.Fatalf("tool edited what the plan refuses: %v", err)
			}
			if want := apply(data, c); !bytes.Equal(got, want) {
				t.Fatalf("file is %q, want %q", got, want)
			}
			if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
				t.Fatal("edited a binary or non-UTF-8 file")
			}
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Fatalf("mode %v", fi.Mode().Perm())
		}
		noDebris(t, dir)
	})
}

// FuzzCheckMarking (issue 16): the one-pass text check of a large file,
// with pieces of 1 to 32 bytes so that characters, NUL bytes and bad
// UTF-8 fall across their ends, refuses exactly what fileio.CheckText
// refuses, with its message, and its marks give every offset lineOf's
// line.
func FuzzCheckMarking(f *testing.F) {
	f.Add([]byte("a\nb\n"), uint8(1))
	f.Add([]byte("caf\xc3\xa9\n\xe2\x82\xac\xf0\x9d\x84\x9e\r\n"), uint8(2))
	f.Add([]byte("x\x00y\n"), uint8(3))
	f.Add([]byte("ok\n\x80\x80\x80\x80\x80\n"), uint8(1))
	f.Add([]byte("\xe2\x82\n\xc0\xaf"), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		if len(data) > maxFuzzFile {
			return
		}
		want := fileio.CheckText("f", "bash", data)
		m := newLineMarks()
		got := checkPieces(nil, "f", "bash", data, m, 1+int(size%32))
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Fatalf("checkPieces = %v, CheckText = %v", got, want)
		}
		if got != nil {
			return
		}
		for off := 0; off <= len(data); off++ {
			if m.lineOf(data, off) != lineOf(data, off) {
				t.Fatalf("line of offset %d = %d, lineOf %d", off, m.lineOf(data, off), lineOf(data, off))
			}
		}
	})
}
