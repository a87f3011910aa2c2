package editor

import (
	"fmt"
	"github.com/shellport/shellport/internal/tools/fileio"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func replaceArgs(p, old, new string) map[string]any {
	return map[string]any{"command": "str_replace", "path": p, "old_str": old, "new_str": new}
}

// Issue 5: the snippet shows the edited region with 4 lines of context,
// numbered like view, and the file changes only inside the match.
func TestStrReplaceSnippet(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "f.txt", numbered(1, 20))
	got := ok(t, tl, replaceArgs(p, "line 10\n", "line ten\nline ten bis\n"))
	want := "Replaced the text at line 10 of " + p + ". Lines 6-15 now read:\n" +
		"     6\tline 6\n     7\tline 7\n     8\tline 8\n     9\tline 9\n" +
		"    10\tline ten\n    11\tline ten bis\n" +
		"    12\tline 11\n    13\tline 12\n    14\tline 13\n    15\tline 14"
	if got != want {
		t.Fatalf("result =\n%s\nwant\n%s", got, want)
	}
	wantFile(t, p, strings.Replace(numbered(1, 20), "line 10\n", "line ten\nline ten bis\n", 1))

	// Near the start and the end the context shrinks.
	p = writeFile(t, "g.txt", "a\nb\nc")
	got = ok(t, tl, replaceArgs(p, "a", "A"))
	contains(t, got, "Lines 1-3 now read:\n     1\tA\n     2\tb\n     3\tc")
}

// Issue 5: omitted new_str deletes old_str.
func TestStrReplaceDelete(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "f.txt", "keep\ndrop me\nkeep too\n")
	res := run(t, newTool(t, 0), "", map[string]any{"command": "str_replace", "path": p, "old_str": "drop me\n"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantFile(t, p, "keep\nkeep too\n")
}

// Issue 5: tabs outside (and inside) the edit survive; peers rewrote every
// tab in the file to spaces.
func TestStrReplaceKeepsTabs(t *testing.T) {
	t.Parallel()
	content := "all:\n\tgo build ./...\n\ntest:\n\tgo test\t-race ./...\n"
	p := writeFile(t, "Makefile", content)
	ok(t, newTool(t, 0), replaceArgs(p, "\tgo test\t-race", "\tgo test\t-count=1 -race"))
	wantFile(t, p, "all:\n\tgo build ./...\n\ntest:\n\tgo test\t-count=1 -race ./...\n")
}

// Issue 5: a CRLF file stays CRLF; old_str written with plain newlines
// matches, and new text takes the file's endings.
func TestStrReplaceCRLF(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "w.bat", "@echo off\r\nset A=1\r\nset B=2\r\necho done\r\n")
	got := ok(t, tl, replaceArgs(p, "set A=1\nset B=2\n", "set A=10\nset B=20\nset C=30\n"))
	wantFile(t, p, "@echo off\r\nset A=10\r\nset B=20\r\nset C=30\r\necho done\r\n")
	contains(t, got, "     2\tset A=10\n", "CRLF")
	lacks(t, got, "\r")

	// old_str with CRLF in an LF file matches too, and new text gets LF.
	p = writeFile(t, "u.txt", "a\nb\nc\n")
	ok(t, tl, replaceArgs(p, "a\r\nb", "x\r\ny"))
	wantFile(t, p, "x\ny\nc\n")

	// A single-line old_str in a CRLF file: multi-line new text gets CRLF.
	p = writeFile(t, "v.txt", "one\r\ntwo\r\n")
	ok(t, tl, replaceArgs(p, "two", "two\nthree"))
	wantFile(t, p, "one\r\ntwo\r\nthree\r\n")

	// An old_str that begins (or ends) with a newline takes the whole CRLF
	// ending, never its \n alone: no stray \r is left (a fuzz finding).
	p = writeFile(t, "s.txt", "\r\n0\r\ny")
	ok(t, tl, replaceArgs(p, "\n0", "x"))
	wantFile(t, p, "x\r\ny")
	p = writeFile(t, "e.txt", "a\r\nb\r\n")
	ok(t, tl, replaceArgs(p, "a\r", "c\r"))
	wantFile(t, p, "c\r\nb\r\n")

	// Differing only in line endings is no change at all.
	p = writeFile(t, "z.txt", "a\r\nb\r\n")
	contains(t, fails(t, tl, replaceArgs(p, "a\r\nb", "a\nb")), "only in line endings")
	wantFile(t, p, "a\r\nb\r\n")
}

// Issue 5: a UTF-8 BOM and a missing final newline are kept.
func TestStrReplaceKeepsBOMAndNoFinalNewline(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "b.txt", "\xEF\xBB\xBFfirst\nlast")
	got := ok(t, tl, replaceArgs(p, "first", "1st"))
	wantFile(t, p, "\xEF\xBB\xBF1st\nlast")
	lacks(t, got, "\uFEFF")
	ok(t, tl, replaceArgs(p, "last", "final"))
	wantFile(t, p, "\xEF\xBB\xBF1st\nfinal")
}

// Issue 5: overlapping matches count, so "aa" in "aaa" is not unique.
func TestStrReplaceOverlapping(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "a.txt", "x\naaa\n")
	got := fails(t, newTool(t, 0), replaceArgs(p, "aa", "b"))
	contains(t, got, "occurs 2 times", "line 2 (2 matches)", "matches overlap", "was not changed")
	wantFile(t, p, "x\naaa\n")
}

// Issue 5: several matches → an error listing the true starting line of
// each, multi-line matches included, capped.
func TestStrReplaceMultipleMatches(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	content := "func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n}\n\n\nfunc c() {\n\treturn nil\n}\n"
	p := writeFile(t, "m.go", content)
	got := fails(t, tl, replaceArgs(p, "\treturn nil\n}", "\treturn err\n}"))
	contains(t, got, "occurs 3 times", "starting on lines 2, 6 and 11", "Add surrounding lines")
	wantFile(t, p, content)

	var b strings.Builder
	for range 25 {
		b.WriteString("dup\n")
	}
	p = writeFile(t, "many.txt", b.String())
	got = fails(t, tl, replaceArgs(p, "dup", "x"))
	contains(t, got, "occurs 25 times", "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 15 more")
}

// Issue 5: no match → an error quoting old_str (bounded) with the nearest
// hint; the file is untouched.
func TestStrReplaceNoMatchHints(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	content := "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n"
	p := writeFile(t, "f.py", content)

	got := fails(t, tl, replaceArgs(p, "\tif x:\n        return 1", "y"))
	contains(t, got, "no match for old_str in "+p, `old_str: "\tif x:\n        return 1"`,
		"matches line 2 onwards if whitespace is ignored", "indents with tabs where old_str has spaces")

	got = fails(t, tl, replaceArgs(p, "     2\t\tif x:\n     3\t\t\treturn 1", "y"))
	contains(t, got, "line numbers copied from view output", "Without them old_str matches at line 2")

	got = fails(t, tl, replaceArgs(p, "\tif x:\n\t\treturn 3", "y"))
	contains(t, got, "closest place starts on line 2", "line 2 of old_str differs from line 3 of the file", `file:    "\t\treturn 1"`)

	got = fails(t, tl, replaceArgs(p, "nothing like it", "y"))
	contains(t, got, "no line of old_str occurs in the file")

	long := strings.Repeat("0123456789", 100)
	got = fails(t, tl, replaceArgs(p, long, "y"))
	contains(t, got, "(700 more bytes)")
	if len(got) > 1500 {
		t.Fatalf("error echoes %d bytes", len(got))
	}
	wantFile(t, p, content)
}

// Issue 5: empty old_str and old_str == new_str are refused before any
// I/O (the path need not even exist).
func TestStrReplaceRefusedArgs(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := filepath.Join(t.TempDir(), "missing.txt")
	contains(t, fails(t, tl, replaceArgs(p, "", "x")), "old_str is empty")
	contains(t, fails(t, tl, replaceArgs(p, "same", "same")), "old_str and new_str are the same")
	contains(t, fails(t, tl, map[string]any{"command": "str_replace", "path": p}), "requires old_str")
	contains(t, fails(t, tl, replaceArgs(p, "a", "b")), "does not exist")
}

// A large new_str gives a bounded snippet that says where the rest is.
func TestStrReplaceSnippetBounded(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 1000)
	p := writeFile(t, "f.txt", "head\nMARK\ntail\n")
	got := ok(t, tl, replaceArgs(p, "MARK", strings.TrimSuffix(numbered(1, 300), "\n")))
	if len(got) > 1000 {
		t.Fatalf("result is %d bytes, limit 1000", len(got))
	}
	contains(t, got, "[snippet cut at the output limit; view_range [", ", 301] shows the rest of the edited lines]")
}

// Editing a directory, a FIFO, a binary file or a non-UTF-8 file is
// refused and changes nothing.
func TestStrReplaceRefusedFiles(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	dir := t.TempDir()
	contains(t, fails(t, tl, replaceArgs(dir, "a", "b")), "is a directory; only view works on directories")

	bin := writeFile(t, "x.bin", "abc\x00def")
	contains(t, fails(t, tl, replaceArgs(bin, "abc", "xyz")), "binary", "left unchanged")
	wantFile(t, bin, "abc\x00def")

	latin := writeFile(t, "l.txt", "ok\ncaf\xe9 au lait\n")
	contains(t, fails(t, tl, replaceArgs(latin, "ok", "fine")), "not valid UTF-8 (first invalid byte on line 2)", "left unchanged")
	wantFile(t, latin, "ok\ncaf\xe9 au lait\n")
}

// Two calls editing the same file at once both land: edits of one file
// are serialised.
func TestStrReplaceConcurrent(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "c.txt", numbered(1, 40))
	var wg sync.WaitGroup
	for i := 1; i <= 40; i++ {
		wg.Go(func() {
			res := run(t, tl, "", replaceArgs(p, fmt.Sprintf("line %d\n", i), fmt.Sprintf("LINE %d\n", i)))
			if res.IsError {
				t.Error(res.Text)
			}
		})
	}
	wg.Wait()
	wantFile(t, p, strings.ReplaceAll(numbered(1, 40), "line", "LINE"))
	noDebris(t, filepath.Dir(p))
}

// A file over the size cap is refused with advice, without reading it.
func TestStrReplaceTooLarge(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "sparse.txt", "")
	if err := os.Truncate(p, fileio.MaxTextBytes+1); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	contains(t, fails(t, newTool(t, 0), replaceArgs(p, "a", "b")), "too large to edit", "sed")
}

// Issue 5: in a file that mixes CRLF and LF, a plain-newline old_str
// cannot match across both; the hint says so.
func TestStrReplaceMixedEndingsHint(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "mixed.txt", "a\r\nb\nc\r\n")
	got := fails(t, newTool(t, 0), replaceArgs(p, "a\nb\nc", "x"))
	contains(t, got, "except for line endings: the file mixes CRLF and LF there (1 CRLF, 1 LF)")
	wantFile(t, p, "a\r\nb\nc\r\n")
}

// Issue 16: on a large file the text check runs beside the search, yet a
// binary or non-UTF-8 file is still refused with the check's own words,
// whatever the search would have said, and left as it was.
func TestLargeFileTextCheckComesFirst(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("x", 63) + "\n"
	body := strings.Repeat(line, parallelCheckMin/len(line)+16)
	for _, bad := range []struct{ name, insert, want string }{
		{"NUL", "\x00", "looks like a binary file (it contains NUL bytes)"},
		{"invalid UTF-8", "\xff\xfe", "is not valid UTF-8 (first invalid byte on line"},
	} {
		content := body[:len(body)/2] + "unique marker" + bad.insert + body[len(body)/2:]
		p := writeFile(t, "big-"+strings.ReplaceAll(bad.name, " ", "-")+".txt", content)
		tl := newTool(t, 0)
		for _, args := range []map[string]any{
			replaceArgs(p, "unique marker", "changed"),                // one match
			replaceArgs(p, "absent text", "changed"),                  // no match: diagnosed
			replaceArgs(p, strings.TrimSuffix(line, "\n"), "changed"), // many matches
			insertArgs(p, 3, "inserted"),                              // an insert
		} {
			contains(t, fails(t, tl, args), bad.want)
			wantFile(t, p, content)
		}
	}
}
