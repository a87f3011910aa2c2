package patch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Bounds on fuzz inputs: small inputs find the bugs.
const (
	maxFuzzText = 4 << 10
	maxFuzzFile = 8 << 10
)

var seedPatches = []string{
	"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n",
	"*** Begin Patch\n*** Update File: a.txt\n@@ def f():\n x\n-y\n+z\n\n*** End of File\n*** Delete File: b\n*** End Patch\n",
	"*** Begin Patch\r\n*** Update File: a\r\n*** Move to: b\r\n@@ -1,2 +1,2 @@ class A\r\n-a\r\n+b\r\n*** End Patch\r\n",
	"<<'EOF'\n*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End Patch\nEOF\n",
	"*** Begin Patch\n*** Update File: a\n-x\n+y\n",
	"*** Begin Patch\n*** Add File: n\n+a\n\n+b\n\n*** Update File: m\n*** Move to: o\n*** End Patch",
}

// Issue 13: the parser never panics, refuses only with a ParseError, and
// what it accepts renders (String) to a text it reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range seedPatches {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > maxFuzzText {
			return
		}
		for _, kind := range []string{"create_file", "update_file", "delete_file"} {
			if _, err := ParseOperation(kind, "p", text); err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("ParseOperation(%s): %T %v", kind, err, err)
				}
			}
		}
		p, err := Parse(text)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse: %T %v", err, err)
			}
			return
		}
		if len(p.Files) == 0 {
			t.Fatal("a patch with no file parsed")
		}
		for _, f := range p.Files {
			if f.Path == "" || (f.Op == Update && len(f.Hunks) == 0 && f.MoveTo == "") {
				t.Fatalf("invalid section parsed: %+v", f)
			}
			for _, h := range f.Hunks {
				if a, r := Counts([]Hunk{h}); a+r == 0 {
					t.Fatalf("a hunk that changes nothing parsed: %+v", h)
				}
			}
		}
		if trailingCR(p) {
			return // a line ending in \r cannot be written in a patch
		}
		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("rendered patch does not parse: %v\n%q", err, p.String())
		}
		if !samePatch(p, q) {
			t.Fatalf("round trip changed the patch:\n%q\n%q", text, p.String())
		}
	})
}

// trailingCR reports a line text of p that ends in \r.
func trailingCR(p *Patch) bool {
	for _, f := range p.Files {
		for _, l := range strings.Split(strings.ReplaceAll(f.Text, "\r\n", "\n"), "\n") {
			if strings.HasSuffix(l, "\r") {
				return true
			}
		}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if strings.HasSuffix(l.Text, "\r") {
					return true
				}
			}
		}
	}
	return false
}

// invert swaps the added and removed lines of hunks.
func invert(hunks []Hunk) []Hunk {
	out := make([]Hunk, len(hunks))
	for i, h := range hunks {
		h.Lines = append([]Line(nil), h.Lines...)
		for j, l := range h.Lines {
			switch l.Kind {
			case '+':
				h.Lines[j].Kind = '-'
			case '-':
				h.Lines[j].Kind = '+'
			}
		}
		out[i] = h
	}
	return out
}

// Issue 13: applying hunks to any file never panics and fails only with a
// HunkError; the lines before the first change are kept byte for byte; and
// on a file with one line-ending style, a patch that matched exactly,
// inverted, restores the file whenever the inverse applies.
func FuzzUpdateText(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), "@@\n a\n-b\n+B\n")
	f.Add([]byte("x\r\ny\r\nz"), " y\n-z\n+Z\n+W")
	f.Add([]byte("\uFEFFhead\nbody\n"), "-head\n+HEAD\n")
	f.Add([]byte("class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n"), "@@ class B:\n@@     def f(self):\n-        pass\n+        return 1\n")
	f.Add([]byte("a\nb"), "@@\n+c\n*** End of File\n")
	f.Add([]byte(""), "+only\n")
	f.Add([]byte("\tx  \ny\n"), "-x\n+z\n y\n")
	f.Fuzz(func(t *testing.T, file []byte, diff string) {
		if len(file) > maxFuzzFile || len(diff) > maxFuzzText {
			return
		}
		p, err := ParseOperation("update_file", "f", diff)
		if err != nil {
			return
		}
		hs := p.Files[0].Hunks
		orig := bytes.Clone(file)
		out, info, err := UpdateText("f", file, hs, p.CRLF)
		if !bytes.Equal(file, orig) {
			t.Fatal("UpdateText modified its input")
		}
		if err != nil {
			var he *HunkError
			if !errors.As(err, &he) || he.Hunk < 1 || he.Hunk > len(hs) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		if len(info) != len(hs) {
			t.Fatalf("%d infos for %d hunks", len(info), len(hs))
		}
		// The lines before the first change are untouched.
		first := info[0].Line - 1
		// (The last of them may lose its line ending when it became the
		// last line of a file without a final newline.)
		keep := prefixLines(file, first)
		lastEnded := bytes.TrimSuffix(bytes.TrimSuffix(keep, nl), []byte{'\r'})
		if !bytes.HasPrefix(out, keep) && !bytes.Equal(out, lastEnded) && !bytes.Equal(out, bytes.TrimSuffix(keep, nl)) {
			t.Fatalf("bytes before line %d changed:\n%q\n%q", first+1, file, out)
		}
		for i, in := range info {
			if in.Match != Exact || len(hs[i].New()) == hs[i].Optional {
				return // a loose match, or an inverse that only adds lines: placed by its @@ line, not by where they were
			}
		}
		crlf := bytes.Count(file, []byte("\r\n"))
		if (crlf != 0 && crlf != bytes.Count(file, nl)) || trailingCR(p) {
			return // mixed endings: a removed line comes back with the file's ending
		}
		if len(bytes.TrimPrefix(out, bom)) == 0 {
			return // an emptied file cannot remember its line endings or a missing final newline
		}
		if len(file) > 0 && file[len(file)-1] != '\n' && out[len(out)-1] == '\n' {
			return // the file gained an empty last line, and with it a final newline
		}
		if len(file) > 0 && file[len(file)-1] == '\r' {
			// A last line ending in a lone CR that gains an ending reads as
			// a CRLF line afterwards (a CR before LF is the ending's), so
			// no inverse can tell the CR was the line's.
			return
		}
		back, _, err := UpdateText("f", out, invert(hs), p.CRLF)
		if err != nil {
			return // the inverse may be ambiguous, or have lost its @@ line
		}
		if !bytes.Equal(back, file) {
			t.Fatalf("inverse did not restore the file:\nfile %q\ndiff %q\nout  %q\nback %q", file, diff, out, back)
		}
	})
}

// prefixLines returns the first n lines of data (BOM included), endings
// included.
func prefixLines(data []byte, n int) []byte {
	off := 0
	if bytes.HasPrefix(data, bom) {
		off = len(bom)
	}
	for ; n > 0; n-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return data[:off]
		}
		off += i + 1
	}
	return data[:off]
}

// Issue 13: applying any patch to a small tree never panics; when it
// fails nothing in the tree changed, and either way no temporary file is
// left. Paths are kept inside the tree (a policy, and no absolute or ..
// paths reach Apply), since the fuzzer may run as root.
func FuzzApply(f *testing.F) {
	for _, s := range seedPatches {
		f.Add(s)
	}
	f.Add("*** Begin Patch\n*** Update File: sub/b.txt\n b1\n-b2\n+B2\n*** Update File: a.txt\n-alpha\n+ALPHA\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Update File: c.txt\n-no newline\n+still none\n*** Add File: sub/new/n.txt\n+n\n*** Delete File: bin.dat\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Update File: link\n*** Move to: moved\n-alpha\n+x\n*** End Patch\n")
	f.Add("*** Begin Patch\n*** Delete File: a.txt\n*** Add File: a.txt\n+again\n*** Update File: a.txt\n*** Move to: sub/a.txt\n-again\n+moved\n*** End Patch\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > maxFuzzText {
			return
		}
		p, err := Parse(text)
		if err != nil || len(p.Files) > 8 {
			return
		}
		for _, f := range p.Files {
			for _, path := range []string{f.Path, f.MoveTo} {
				if filepath.IsAbs(path) || strings.Contains(path, "..") || strings.HasPrefix(path, "~") {
					return
				}
			}
		}
		dir := tree(t, map[string]string{
			"a.txt":     "alpha\nbeta\n",
			"sub/b.txt": "b1\r\nb2\r\n",
			"c.txt":     "no newline",
			"bin.dat":   "\x00bin",
		})
		if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dir)
		_, err = Apply(context.Background(), p, Options{Cwd: dir, Policy: fileio.Within(dir)})
		if err != nil {
			unchanged(t, dir, before)
		}
		noDebris(t, dir)
	})
}
