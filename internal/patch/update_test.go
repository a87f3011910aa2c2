package patch

import (
	"errors"
	"strings"
	"testing"
)

// hunks parses the hunks of an update_file diff.
func hunks(t *testing.T, diff string) []Hunk {
	t.Helper()
	p, err := ParseOperation("update_file", "f", diff)
	if err != nil {
		t.Fatalf("diff %q: %v", diff, err)
	}
	return p.Files[0].Hunks
}

// update applies diff to file and returns the new content.
func update(t *testing.T, file, diff string) (string, []HunkInfo) {
	t.Helper()
	out, info, err := UpdateText("f", []byte(file), hunks(t, diff), false)
	if err != nil {
		t.Fatalf("UpdateText(%q, %q): %v", file, diff, err)
	}
	return string(out), info
}

func wantUpdate(t *testing.T, file, diff, want string) []HunkInfo {
	t.Helper()
	got, info := update(t, file, diff)
	if got != want {
		t.Fatalf("file %q, diff %q:\ngot  %q\nwant %q", file, diff, got, want)
	}
	return info
}

// updateFails checks the error wraps sentinel and mentions each part.
func updateFails(t *testing.T, file, diff string, sentinel error, parts ...string) {
	t.Helper()
	_, _, err := UpdateText("f", []byte(file), hunks(t, diff), false)
	if !errors.Is(err, sentinel) {
		t.Fatalf("file %q, diff %q: error %v, want %v", file, diff, err, sentinel)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error lacks %q:\n%v", p, err)
		}
	}
}

func TestUpdateKeepsBytesOutsideHunks(t *testing.T) {
	t.Parallel()
	// Tabs, trailing spaces and a lone \r outside the change stay.
	wantUpdate(t, "a:\n\tgo build  \r\n\tgo vet\nb\tc\rd\n", " \tgo build  \n-\tgo vet\n+\tgo test\n", "a:\n\tgo build  \r\n\tgo test\nb\tc\rd\n")
	// A CRLF file stays CRLF when the diff uses LF; added lines take CRLF.
	wantUpdate(t, "one\r\ntwo\r\nthree\r\n", " one\n-two\n+2\n+2b\n", "one\r\n2\r\n2b\r\nthree\r\n")
	// ... and when the diff uses CRLF on an LF file, LF.
	out, _, err := UpdateText("f", []byte("one\ntwo\n"), hunks(t, " one\r\n-two\r\n+2\r\n"), true)
	if err != nil || string(out) != "one\n2\n" {
		t.Fatalf("CRLF diff on LF file: %q %v", out, err)
	}
	// A BOM stays in front, even when the first line is replaced.
	wantUpdate(t, "\uFEFFfirst\nsecond\n", "-first\n+1st\n second\n", "\uFEFF1st\nsecond\n")
	// No final newline: kept when the last line changes, when lines are
	// appended after it, and when the last line is removed.
	wantUpdate(t, "a\nb", " a\n-b\n+B", "a\nB")
	wantUpdate(t, "a\nb", " b\n+c\n+d", "a\nb\nc\nd")
	wantUpdate(t, "a\nb", " a\n-b", "a")
	wantUpdate(t, "a\r\nb", " a\n-b", "a")
	wantUpdate(t, "a\nb\n", " b\n+c", "a\nb\nc\n")
	// ... except that a new empty last line needs a line ending after it.
	wantUpdate(t, "a", " a\n+", "a\n\n")
	wantUpdate(t, "a", "-a\n+", "\n")
	// An empty file gets its first lines, ended.
	wantUpdate(t, "", "+x\n+y", "x\ny\n")
	wantUpdate(t, "\uFEFF", "+x", "\uFEFFx\n")
}

func TestUpdateMultipleHunksAndLineNumbers(t *testing.T) {
	t.Parallel()
	file := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n"
	info := wantUpdate(t, file, "@@\n l1\n-l2\n+two\n+two-b\n l3\n@@\n l6\n-l7\n l8\n", "l1\ntwo\ntwo-b\nl3\nl4\nl5\nl6\nl8\n")
	if len(info) != 2 || info[0].Line != 2 || info[0].Added != 2 || info[0].Removed != 1 || info[1].Line != 8 || info[1].Removed != 1 {
		t.Fatalf("info %+v", info)
	}
	// Several change groups inside one hunk.
	wantUpdate(t, "a\nb\nc\nd\ne\n", " a\n-b\n+B\n c\n-d\n+D\n e\n", "a\nB\nc\nD\ne\n")
}

func TestUpdateEndOfFile(t *testing.T) {
	t.Parallel()
	// The block must be the last lines, even when it also occurs earlier.
	wantUpdate(t, "x\nend\nx\nend\n", " x\n-end\n+END\n*** End of File\n", "x\nend\nx\nEND\n")
	// A pure addition at the end.
	wantUpdate(t, "a\nb", "@@\n+c\n*** End of File\n", "a\nb\nc")
	updateFails(t, "x\nend\ntail\n", " x\n-end\n+END\n*** End of File\n", ErrNoMatch, "not the last lines", "line 1")
}

func TestUpdateTolerance(t *testing.T) {
	t.Parallel()
	// Trailing whitespace: the file's unchanged line keeps its spaces.
	info := wantUpdate(t, "if x:   \n    y = 1\n", " if x:\n-    y = 1\n+    y = 2\n", "if x:   \n    y = 2\n")
	if info[0].Match != IgnoreTrailingSpace {
		t.Fatalf("match %v", info[0].Match)
	}
	// Indentation written with spaces for a tab-indented file.
	info = wantUpdate(t, "func f() {\n\treturn 1\n}\n", " func f() {\n-    return 1\n+\treturn 2\n }\n", "func f() {\n\treturn 2\n}\n")
	if info[0].Match != IgnoreSpace {
		t.Fatalf("match %v", info[0].Match)
	}
	// Typographic punctuation in the file, ASCII in the patch.
	info = wantUpdate(t, "say(“hi” — it’s\u00a0ok)\nnext\n", "-say(\"hi\" - it's ok)\n+say(\"bye\")\n next\n", "say(\"bye\")\nnext\n")
	if info[0].Match != IgnorePunctuation {
		t.Fatalf("match %v", info[0].Match)
	}
	// An exact match wins over a loose one elsewhere.
	info = wantUpdate(t, "  x\nx\n", "-x\n+y\n", "  x\ny\n")
	if info[0].Match != Exact {
		t.Fatalf("match %v", info[0].Match)
	}
	// Never looser than whole lines: a different word does not match.
	updateFails(t, "value = compute(a)\nnext\n", "-value = compute(b)\n+v = 0\n next\n", ErrNoMatch, "line 1", `"value = compute(a)"`, `"value = compute(b)"`)
}

// Issue 13: an ambiguous block is refused with the places it matches.
func TestUpdateAmbiguous(t *testing.T) {
	t.Parallel()
	updateFails(t, "a\nb\nc\nb\nc\n", " b\n-c\n+C\n", ErrAmbiguous, "hunk 1", `"b"`, "2 places", "lines 2 and 4")
	many := strings.Repeat("x\n", 9)
	updateFails(t, many, "-x\n+y\n", ErrAmbiguous, "9 places", "lines 1, 2, 3, 4, 5 and 4 more")
	// A pure addition with neither context nor @@ line has no place.
	updateFails(t, "a\n", "@@\n+b\n", ErrNoMatch, "only adds lines")
}

// Issue 13: missing context, hunks out of order and overlapping hunks.
func TestUpdateMissingOrderOverlap(t *testing.T) {
	t.Parallel()
	updateFails(t, "alpha\nbeta\ngamma\n", " alpha\n-beta2\n+b\n", ErrNoMatch, "hunk 1", "closest place is line 1", `the file has "beta"`, `the hunk has "beta2"`)
	updateFails(t, "alpha\n", "-zeta\n+z\n", ErrNoMatch, "none of its 1 unchanged or removed lines")
	// Second hunk above the first.
	updateFails(t, "a\nb\nc\nd\n", "@@\n-c\n+C\n@@\n-a\n+A\n", ErrOrder, "hunk 2", "line 1", "must follow the file's order")
	// Second hunk overlapping the first: they share line c.
	updateFails(t, "a\nb\nc\nd\n", "@@\n a\n-b\n+B\n c\n@@\n c\n-d\n+D\n", ErrOrder, "hunk 2", "line 3", "must not overlap")
}

// @@ lines pick between places a block matches, the way a model is told to
// use them: the enclosing class and function.
func TestUpdateAnchors(t *testing.T) {
	t.Parallel()
	file := `class A:
    def __init__(self):
        self.x = 1

class B:
    def __init__(self):
        self.x = 1

class C:
    def __init__(self):
        self.x = 1
`
	got, _ := update(t, file, "@@ class B:\n@@     def __init__(self):\n-        self.x = 1\n+        self.x = 2\n")
	if want := strings.Replace(file, "class B:\n    def __init__(self):\n        self.x = 1", "class B:\n    def __init__(self):\n        self.x = 2", 1); got != want {
		t.Fatalf("stacked anchors:\n%s", got)
	}
	// One @@ line for a header that repeats is still ambiguous.
	updateFails(t, file, "@@ def __init__(self):\n-        self.x = 1\n+        self.x = 2\n", ErrAmbiguous, "3 places")
	// A function named by a prefix of its header line; the block in a
	// later function does not count.
	src := "def bar(a, b):\n    y = 1\n    return x\n\ndef baz():\n    y = 1\n    return x\n"
	wantUpdate(t, src, "@@ def bar\n     y = 1\n-    return x\n+    return a\n", "def bar(a, b):\n    y = 1\n    return a\n\ndef baz():\n    y = 1\n    return x\n")
	// ... but a prefix that ends inside a word names nothing.
	updateFails(t, "def barrel():\n    y = 1\n", "@@ def bar\n-    y = 1\n+    y = 2\n", ErrNoAnchor, `"def bar" is not a line of the file`)
	// An @@ line below the block does not place it.
	updateFails(t, "    y = 1\ndef late():\n    pass\n", "@@ def late():\n-    y = 1\n+    y = 2\n", ErrNoAnchor, "not below its @@ lines")
	// The block may start with the line its @@ line names.
	wantUpdate(t, "def g():\n    pass\ndef f():\n    pass\n", "@@ def f():\n def f():\n-    pass\n+    return 1\n", "def g():\n    pass\ndef f():\n    return 1\n")
	// A repeated @@ line of the previous hunk's function is fine.
	wantUpdate(t, "def f():\n    a = 1\n    b = 2\n    c = 3\n", "@@ def f():\n-    a = 1\n+    a = 10\n@@ def f():\n-    c = 3\n+    c = 30\n", "def f():\n    a = 10\n    b = 2\n    c = 30\n")
	// A pure addition goes right after its @@ line.
	wantUpdate(t, "class A:\n    pass\nclass B:\n    pass\n", "@@ class B:\n+    x = 1\n", "class A:\n    pass\nclass B:\n    x = 1\n    pass\n")
	updateFails(t, "if a:\n    pass\nif a:\n    pass\n", "@@ if a:\n+    x = 1\n", ErrAmbiguous, "matches 2 lines")
	// Go: the closing brace does not end the function's block.
	goSrc := "func a() {\n\tif x {\n\t\treturn\n\t}\n\tdone()\n}\n\nfunc b() {\n\tif x {\n\t\treturn\n\t}\n\tdone()\n}\n"
	got, _ = update(t, goSrc, "@@ func b() {\n \t}\n-\tdone()\n+\tfinish()\n")
	if !strings.HasSuffix(got, "func b() {\n\tif x {\n\t\treturn\n\t}\n\tfinish()\n}\n") || !strings.HasPrefix(got, "func a() {\n\tif x {\n\t\treturn\n\t}\n\tdone()") {
		t.Fatalf("Go scope:\n%s", got)
	}
}

// Empty lines ending a hunk may be separators: the block is tried without
// them when it matches nowhere with them.
func TestUpdateOptionalTrailingBlank(t *testing.T) {
	t.Parallel()
	p := mustParse(t, "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n\n*** Delete File: g\n*** End Patch\n")
	out, _, err := UpdateText("f", []byte("a\nb\n"), p.Files[0].Hunks, false)
	if err != nil || string(out) != "a\nB\n" {
		t.Fatalf("separator blank line: %q %v", out, err)
	}
	// When the file does have the empty line, it is matched and kept.
	out, _, err = UpdateText("f", []byte("a\nb\n\nb\nc\n"), p.Files[0].Hunks, false)
	if err != nil || string(out) != "a\nB\n\nb\nc\n" {
		t.Fatalf("matching blank line: %q %v", out, err)
	}
}

// A huge file is patched near its end; every other byte is kept.
func TestUpdateHugeFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 400_000 {
		b.WriteString("\tline ")
		b.WriteString(strings.Repeat("x", i%40))
		b.WriteString("\r\n")
	}
	head := b.String()
	file := head + "marker one\r\nmarker two\r\n"
	out, _, err := UpdateText("f", []byte(file), hunks(t, " marker one\n-marker two\n+marker 2\n*** End of File\n"), false)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != head+"marker one\r\nmarker 2\r\n" {
		t.Fatal("huge file damaged")
	}
}
