package editor

import (
	"testing"
)

func insertArgs(p string, line int, text string) map[string]any {
	return map[string]any{"command": "insert", "path": p, "insert_line": line, "new_str": text}
}

// Issue 5: insert_line 0..N; new_str goes in as whole lines; one trailing
// newline ends the last inserted line instead of adding a blank one.
func TestInsertPositions(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	cases := []struct {
		name, file string
		line       int
		text, want string
	}{
		{"top", "a\nb\n", 0, "x", "x\na\nb\n"},
		{"top with newline", "a\nb\n", 0, "x\n", "x\na\nb\n"},
		{"middle", "a\nb\n", 1, "x\ny", "a\nx\ny\nb\n"},
		{"end", "a\nb\n", 2, "x\n", "a\nb\nx\n"},
		{"blank line", "a\nb\n", 1, "\n", "a\n\nb\n"},
		{"two trailing newlines keep one blank line", "a\nb\n", 1, "x\n\n", "a\nx\n\nb\n"},
		{"no final newline: no glued lines, still no final newline", "a\nb", 2, "x\n", "a\nb\nx"},
		{"no final newline, middle", "a\nb", 1, "x", "a\nx\nb"},
		{"empty file", "", 0, "x", "x\n"},
		{"CRLF file takes CRLF", "a\r\nb\r\n", 1, "x\ny\n", "a\r\nx\r\ny\r\nb\r\n"},
		{"CRLF new_str into LF file", "a\nb\n", 1, "x\r\ny\r\n", "a\nx\ny\nb\n"},
		{"BOM stays first", "\xEF\xBB\xBFa\n", 0, "x", "\xEF\xBB\xBFx\na\n"},
		{"tabs kept", "\ta\n", 1, "\tb\t c", "\ta\n\tb\t c\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, "f.txt", c.file)
			ok(t, tl, insertArgs(p, c.line, c.text))
			wantFile(t, p, c.want)
		})
	}
}

// Issue 5: insert_line past the end is an error naming the valid range;
// the snippet is numbered like view.
func TestInsertErrorsAndSnippet(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "f.txt", numbered(1, 10))
	got := fails(t, tl, insertArgs(p, 11, "x"))
	contains(t, got, "insert_line 11 is past the end", "has 10 lines", "use 10 to append")
	contains(t, fails(t, tl, insertArgs(p, -1, "x")), "insert_line must be 0 or more")
	contains(t, fails(t, tl, map[string]any{"command": "insert", "path": p, "new_str": "x"}), "requires insert_line")
	contains(t, fails(t, tl, map[string]any{"command": "insert", "path": p, "insert_line": 1}), "requires new_str")
	contains(t, fails(t, tl, insertArgs(p, 1, "")), "nothing to insert")
	wantFile(t, p, numbered(1, 10))

	got = ok(t, tl, insertArgs(p, 5, "new A\nnew B\n"))
	want := "Inserted 2 lines after line 5 of " + p + ". Lines 2-11 now read:\n" +
		"     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n" +
		"     6\tnew A\n     7\tnew B\n" +
		"     8\tline 6\n     9\tline 7\n    10\tline 8\n    11\tline 9"
	if got != want {
		t.Fatalf("result =\n%s\nwant\n%s", got, want)
	}

	p = writeFile(t, "g.txt", "a\nb")
	got = ok(t, tl, insertArgs(p, 2, "c"))
	contains(t, got, "Inserted 1 line after line 2", "     2\tb\n     3\tc")
}
