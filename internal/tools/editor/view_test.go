package editor

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 5: view numbers each line like cat -n (six columns, a tab), keeps
// tabs raw, splits on \n only and adds no phantom line after a final
// newline.
func TestViewFormat(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	content := "package main\n\tindented\twith tabs\nform\ffeed and line\u2028separator\nlone\rcarriage\n\n"
	p := writeFile(t, "f.go", content)
	got := ok(t, tl, map[string]any{"command": "view", "path": p})
	want := "     1\tpackage main\n" +
		"     2\t\tindented\twith tabs\n" +
		"     3\tform\ffeed and line\u2028separator\n" +
		"     4\tlone\rcarriage\n" +
		"     5\t"
	if got != want {
		t.Fatalf("view =\n%q\nwant\n%q", got, want)
	}
}

func TestViewNoFinalNewline(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "f.txt", "one\ntwo")
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": p})
	if got != "     1\tone\n     2\ttwo" {
		t.Fatalf("view = %q", got)
	}
}

func TestViewEmptyFile(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "empty", "")
	contains(t, ok(t, tl, map[string]any{"command": "view", "path": p}), "empty file")
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{1, -1}}), "is empty")
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// Issue 5: view_range [a, b] inclusive, b = -1 to the end, b past the end
// clamped with a note, a out of range an error.
func TestViewRange(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "f.txt", numbered(1, 20))
	got := ok(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{3, 5}})
	if got != "     3\tline 3\n     4\tline 4\n     5\tline 5\n[lines 3-5 of 20]" {
		t.Fatalf("range [3,5] = %q", got)
	}
	got = ok(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{19, -1}})
	if got != "    19\tline 19\n    20\tline 20\n[lines 19-20 of 20]" {
		t.Fatalf("range [19,-1] = %q", got)
	}
	got = ok(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{20, 500}})
	contains(t, got, "    20\tline 20\n", "[view_range end 500 is past the last line; showing lines 20-20 of 20]")
	got = ok(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{20, 20}})
	if got != "    20\tline 20\n[lines 20-20 of 20]" {
		t.Fatalf("range [20,20] = %q", got)
	}

	contains(t, fails(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{21, -1}}), "view_range start 21 is past the end", "has 20 lines")
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{0, 5}}), "start must be 1 or more")
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{5, 4}}), "end 4 is before start 5")
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{5}}), "two line numbers")
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{1, 2, 3}}), "two line numbers")
}

var lineRE = regexp.MustCompile(`^ *(\d+)\t(.*)$`)
var nextRE = regexp.MustCompile(`view_range \[(\d+), (\d+)\] shows the next part`)

// Issue 5: output is bounded by maxOutputChars, cut on whole lines, line
// numbers stay true, and the note names the exact next view_range. Paging
// with those ranges must rebuild the file exactly.
func TestViewPagingRebuildsFile(t *testing.T) {
	t.Parallel()
	const limit = 2000
	tl := newTool(t, limit)
	var b strings.Builder
	for i := 1; i <= 700; i++ {
		fmt.Fprintf(&b, "%s\tline %d é\n", strings.Repeat("x", i%37), i)
	}
	content := b.String()
	p := writeFile(t, "big.txt", content)

	var rebuilt strings.Builder
	start, end := 1, -1
	pages := 0
	for {
		args := map[string]any{"command": "view", "path": p}
		if pages > 0 {
			args["view_range"] = []int{start, end}
		}
		got := ok(t, tl, args)
		pages++
		if n := utf8.RuneCountInString(got); n > limit {
			t.Fatalf("page %d has %d characters, limit %d", pages, n, limit)
		}
		want := start
		var last int
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "[") {
				continue
			}
			m := lineRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("page %d: malformed line %q", pages, l)
			}
			n, _ := strconv.Atoi(m[1])
			if n != want {
				t.Fatalf("page %d: line number %d, want %d", pages, n, want)
			}
			rebuilt.WriteString(m[2] + "\n")
			last = n
			want++
		}
		if end != -1 && last != end {
			t.Fatalf("page %d: asked for [%d, %d] (the suggested range) but got up to %d:\n%s", pages, start, end, last, got)
		}
		m := nextRE.FindStringSubmatch(got)
		if m == nil {
			if last == 700 {
				contains(t, got, "of 700]")
				break
			}
			start, end = last+1, -1 // the suggested range fit; go on from there
			continue
		}
		start, _ = strconv.Atoi(m[1])
		end, _ = strconv.Atoi(m[2])
		if start != last+1 {
			t.Fatalf("page %d ends at %d but suggests starting at %d", pages, last, start)
		}
		if pages > 200 {
			t.Fatal("paging does not end")
		}
	}
	if pages < 5 {
		t.Fatalf("only %d pages; the limit did not bite", pages)
	}
	if rebuilt.String() != content {
		t.Fatal("paging did not rebuild the file exactly")
	}
}

// A line longer than the whole budget is shown in part, with a note, and
// the view goes on from the next line.
func TestViewLongLine(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 1000)
	long := strings.Repeat("ab", 5000)
	p := writeFile(t, "min.js", "first\n"+long+"\nthird\n")
	got := ok(t, tl, map[string]any{"command": "view", "path": p})
	contains(t, got, "     1\tfirst\n", "view_range [2, 2] shows the next part")
	got = ok(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{2, -1}})
	contains(t, got, "     2\tabab", "[line 2 has 10000 characters; only the first", "view_range [3, 3] shows the next part")
	if n := utf8.RuneCountInString(got); n > 1000 {
		t.Fatalf("output has %d characters, limit 1000", n)
	}
	// A line longer than the scan buffer.
	huge := strings.Repeat("z", scanBufSize*2+17)
	p = writeFile(t, "huge.txt", huge+"\nafter\n")
	got = ok(t, tl, map[string]any{"command": "view", "path": p})
	contains(t, got, fmt.Sprintf("[line 1 has %d characters", len(huge)), "view_range [2, 2]")
	got = ok(t, tl, map[string]any{"command": "view", "path": p, "view_range": []int{2, -1}})
	if got != "     2\tafter\n[lines 2-2 of 2]" {
		t.Fatalf("view after a huge line = %q", got)
	}
}

// Issue 5: CRLF endings are not shown (the \r would not survive a copy
// into old_str) and a note says edits keep them; a BOM is not shown.
func TestViewCRLFAndBOM(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "w.txt", "\xEF\xBB\xBFfirst\r\nsecond\r\n")
	got := ok(t, tl, map[string]any{"command": "view", "path": p})
	if !strings.HasPrefix(got, "     1\tfirst\n     2\tsecond\n[CRLF line endings are shown without the \\r") {
		t.Fatalf("view = %q", got)
	}
	lacks(t, got, "\r", "\uFEFF")
}

// Issue 5: invalid UTF-8 is shown with replacement characters and a note.
func TestViewInvalidUTF8(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "latin1.txt", "caf\xe9\nok\nna\xefve\n")
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": p})
	contains(t, got, "     1\tcaf\uFFFD\n", "     3\tna\uFFFDve\n", "[invalid UTF-8 on lines 1, 3, shown as U+FFFD")
	if !utf8.ValidString(got) {
		t.Fatal("view output is not valid UTF-8")
	}
}

// Issue 5: a file with NUL bytes is binary: refused, never dumped, even
// when the NUL comes after the first block.
func TestViewBinaryRefused(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "a.bin", "ELF\x00\x01\x02secret")
	got := fails(t, tl, map[string]any{"command": "view", "path": p})
	contains(t, got, "binary")
	lacks(t, got, "secret")
	late := strings.Repeat("text line\n", 2000) + "\x00tail"
	p = writeFile(t, "late.bin", late)
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": p}), "binary")
}

func TestViewDeviceRefused(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	contains(t, fails(t, newTool(t, 0), map[string]any{"command": "view", "path": "/dev/null"}), "character device", "regular files")
}

func TestViewMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	got := fails(t, newTool(t, 0), map[string]any{"command": "view", "path": dir + "/nope.txt"})
	contains(t, got, "does not exist", "its directory "+dir+" exists")
	got = fails(t, newTool(t, 0), map[string]any{"command": "view", "path": dir + "/a/b/nope.txt"})
	contains(t, got, "the nearest existing directory is "+dir)
}

// Every note a view can carry, with the largest numbers, fits in the
// reserve kept for notes; otherwise a view could overrun its limit.
func TestNotesFitReserve(t *testing.T) {
	t.Parallel()
	const big = 1<<31 - 1
	w := &numberer{crlf: true, badLines: []int{big, big, big, big, big}, badCount: big, cutLine: big, cutLineLen: big, cutShown: big}
	notes := append(rangeNotes(true, big, big, big, big-1, big, big), w.notes()...)
	n := 0
	for _, s := range notes {
		n += utf8.RuneCountInString(s) + 1
	}
	if n >= noteReserve {
		t.Fatalf("notes take %d characters, reserve is %d:\n%s", n, noteReserve, strings.Join(notes, "\n"))
	}
	t.Logf("worst-case notes: %d characters", n)
}
