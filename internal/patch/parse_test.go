package patch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string) *Patch {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse:\n%s\nerror: %v", text, err)
	}
	return p
}

// parseFails checks that text is refused with a ParseError naming line
// (0: the whole text) and holding want.
func parseFails(t *testing.T, text string, line int, want string) {
	t.Helper()
	_, err := Parse(text)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("Parse(%q) = %v, want a ParseError", text, err)
	}
	if pe.Line != line || !strings.Contains(err.Error(), want) {
		t.Fatalf("Parse(%q) = %v (line %d), want line %d and %q", text, err, pe.Line, line, want)
	}
}

func TestParseEnvelope(t *testing.T) {
	t.Parallel()
	p := mustParse(t, `*** Begin Patch
*** Add File: docs/new.md
+# Title
+
+body
*** Update File: src/app.py
*** Move to: src/main.py
@@ class App:
@@     def run(self):
     x = 1
-    return x
+    return x + 1
@@
-old
+new
*** End of File
*** Delete File: tmp/scratch.txt
*** End Patch
`)
	want := []File{
		{Op: Add, Path: "docs/new.md", Text: "# Title\n\nbody\n", Line: 2},
		{Op: Update, Path: "src/app.py", MoveTo: "src/main.py", Line: 6, Hunks: []Hunk{
			{Anchors: []string{"class App:", "    def run(self):"}, Line: 8, Lines: []Line{{' ', "    x = 1"}, {'-', "    return x"}, {'+', "    return x + 1"}}},
			{Line: 13, EOF: true, Lines: []Line{{'-', "old"}, {'+', "new"}}},
		}},
		{Op: Delete, Path: "tmp/scratch.txt", Line: 17},
	}
	if !reflect.DeepEqual(p.Files, want) {
		t.Fatalf("got  %#v\nwant %#v", p.Files, want)
	}
	if p.CRLF {
		t.Fatal("LF patch read as CRLF")
	}
}

func TestParseLenience(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"blank lines around":  "\n\n  *** Begin Patch  \n*** Update File: a.txt  \n@@\n-x\n+y\n\n*** End Patch  \n\n",
		"heredoc wrapper":     "<<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\nEOF\n",
		"command and heredoc": "apply_patch <<\"EOF\"\n*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** End Patch\nEOF",
		"CRLF patch":          "*** Begin Patch\r\n*** Update File: a.txt\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n",
		"no final newline":    "*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** End Patch",
		"leading BOM":         "\uFEFF*** Begin Patch\n*** Update File: a.txt\n-x\n+y\n*** End Patch\n",
	} {
		p, err := Parse(text)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		h := p.Files[0].Hunks[0]
		if p.Files[0].Path != "a.txt" || len(h.Lines) < 2 || h.Lines[0] != (Line{'-', "x"}) || h.Lines[1] != (Line{'+', "y"}) {
			t.Errorf("%s: parsed %#v", name, p.Files)
		}
	}
	if p := mustParse(t, "*** Begin Patch\r\n*** Add File: n.txt\r\n+a\r\n*** End Patch\r\n"); !p.CRLF || p.Files[0].Text != "a\r\n" {
		t.Errorf("CRLF patch: CRLF=%v text %q", p.CRLF, p.Files[0].Text)
	}
}

func TestParseHunkDetails(t *testing.T) {
	t.Parallel()
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.py\n@@ -10,4 +10,5 @@ def f():\n x\n\n-y\n+z\n\n\n@@ -40,2 +41,2 @@\n-q\n+r\n*** End Patch\n")
	h := p.Files[0].Hunks
	if len(h) != 2 || !reflect.DeepEqual(h[0].Anchors, []string{"def f():"}) || h[1].Anchors != nil {
		t.Fatalf("unified-diff headers: %#v", h)
	}
	// A bare empty line inside a hunk is an empty unchanged line; bare
	// empty lines ending a hunk are optional.
	want := []Line{{' ', "x"}, {' ', ""}, {'-', "y"}, {'+', "z"}, {' ', ""}, {' ', ""}}
	if !reflect.DeepEqual(h[0].Lines, want) || h[0].Optional != 2 {
		t.Fatalf("lines %#v optional %d", h[0].Lines, h[0].Optional)
	}
	// An empty line between + lines of an added file is a line of the file.
	p = mustParse(t, "*** Begin Patch\n*** Add File: n.txt\n+a\n\n+b\n\n*** Delete File: x\n*** End Patch\n")
	if p.Files[0].Text != "a\n\nb\n" || len(p.Files) != 2 {
		t.Fatalf("add with blank lines: %#v", p.Files)
	}
	// An Add File with no lines makes an empty file; a pure move has no hunks.
	p = mustParse(t, "*** Begin Patch\n*** Add File: empty\n*** Update File: a\n*** Move to: b\n*** End Patch\n")
	if p.Files[0].Text != "" || p.Files[1].MoveTo != "b" || len(p.Files[1].Hunks) != 0 {
		t.Fatalf("empty add and pure move: %#v", p.Files)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	parseFails(t, "", 0, "empty")
	parseFails(t, "\n  \n", 0, "empty")
	parseFails(t, "*** Update File: a\n-x\n+y\n*** End Patch\n", 1, "starts with the line *** Begin Patch")
	// A truncated envelope: the model's output was cut off.
	parseFails(t, "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n", 5, "cut off")
	parseFails(t, "*** Begin Patch\n", 1, "cut off")
	parseFails(t, "*** Begin Patch\n*** Delete File: a\n*** End Patch\nDone: I deleted a.\n", 4, "text follows the line *** End Patch")
	parseFails(t, "*** Begin Patch\n*** End Patch\n", 0, "no file section")
	parseFails(t, "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n", 2, "expected a file section")
	parseFails(t, "*** Begin Patch\n*** Add File:   \n+x\n*** End Patch\n", 2, "no path after")
	parseFails(t, "*** Begin Patch\n*** Add File: a\n+x\n y\n*** End Patch\n", 4, "only lines starting with +")
	parseFails(t, "*** Begin Patch\n*** Delete File: "+strings.Repeat("d/", 3000)+"\n*** End Patch\n", 2, "path is too long")
	parseFails(t, "*** Begin Patch\n*** Add File: ~/x\n+b\n*** End Patch\n", 2, "starts with ~")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n*** End Patch\n", 2, "holds no hunk")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n@@\n x\n y\n*** End Patch\n", 3, "changes nothing")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n@@ f\n*** End Patch\n", 3, "no lines under it")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End of File\n z\n*** End Patch\n", 6, "starts with an @@ line")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch\n", 3, "must follow the lines of a hunk")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n-x\n+y\nz\n*** End Patch\n", 5, "each line of a hunk starts with")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n-x\n+y\n*** Bogus\n*** End Patch\n", 5, "unknown marker")
	parseFails(t, "*** Begin Patch\n*** Update File: a\n-x\n+y\n*** Move to: b\n*** End Patch\n", 5, "right after its")
	parseFails(t, "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n*** End Patch\n", 3, "before the last line")
	parseFails(t, "*** Begin Patch\n*** Add File: a\n+caf\xe9\n*** End Patch\n", 3, "not valid UTF-8")
	parseFails(t, "*** Begin Patch\n*** Add File: a\n+a\x00b\n*** End Patch\n", 3, "NUL")
}

func TestParseOperation(t *testing.T) {
	t.Parallel()
	p, err := ParseOperation("create_file", "notes/todo.md", "+# Todo\n+\n+- one\n")
	if err != nil || p.Files[0].Op != Add || p.Files[0].Text != "# Todo\n\n- one\n" {
		t.Fatalf("create_file: %#v %v", p, err)
	}
	p, err = ParseOperation("update_file", "a.py", "@@ def f():\n-    pass\n+    return 1\n")
	if err != nil || p.Files[0].Op != Update || p.Files[0].Hunks[0].Anchors[0] != "def f():" {
		t.Fatalf("update_file: %#v %v", p, err)
	}
	p, err = ParseOperation("update_file", "a.py", " a\n-b\n+c\n")
	if err != nil || len(p.Files[0].Hunks) != 1 {
		t.Fatalf("update_file without @@: %#v %v", p, err)
	}
	if p, err = ParseOperation("delete_file", "a.py", ""); err != nil || p.Files[0].Op != Delete {
		t.Fatalf("delete_file: %#v %v", p, err)
	}
	for _, tc := range []struct{ kind, path, diff, want string }{
		{"create_file", "", "+x", `"path" is required`},
		{"rename_file", "a", "", "unknown type"},
		{"", "a", "", `"type" is required`},
		{"delete_file", "a", "-x\n", "takes no diff"},
		{"create_file", "a", "+x\nplain\n", "starts with +"},
		{"update_file", "a", "", "holds no hunk"},
		{"update_file", "a", "*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End Patch\n", "whole *** Begin Patch envelope"},
		{"update_file", "a", "-x\n+y\n*** Update File: b\n", "holds only hunks"},
		{"update_file", "a", "@@\n x\n", "changes nothing"},
		{"create_file", "a", "+\xff\n", "not valid UTF-8"},
	} {
		_, err := ParseOperation(tc.kind, tc.path, tc.diff)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseOperation(%q, %q, %q) = %v, want %q", tc.kind, tc.path, tc.diff, err, tc.want)
		}
	}
}

// String writes what Parse reads back.
func TestStringRoundTrip(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n+\n*** Update File: b\n*** Move to: c\n@@ class A\n@@  def f\n x\n-y\n+z\n\n*** End of File\n*** Delete File: d\n*** End Patch\n",
		"*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch\r\n",
	} {
		p := mustParse(t, text)
		q := mustParse(t, p.String())
		if !samePatch(p, q) {
			t.Errorf("round trip of\n%s\ngave\n%s", text, p.String())
		}
	}
}

// samePatch compares patches but not the line numbers of their parts.
func samePatch(a, b *Patch) bool {
	strip := func(p *Patch) []File {
		out := make([]File, len(p.Files))
		for i, f := range p.Files {
			f.Line = 0
			hs := make([]Hunk, len(f.Hunks))
			for j, h := range f.Hunks {
				h.Line = 0
				hs[j] = h
			}
			f.Hunks = hs
			out[i] = f
		}
		return out
	}
	return a.CRLF == b.CRLF && reflect.DeepEqual(strip(a), strip(b))
}
