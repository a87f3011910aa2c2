package editor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// mappedText is a CRLF, tab-indented text large enough for an edit to map
// it (fileio's mapMin is 4 MiB), with one "target" line near its end.
func mappedText() string {
	var b strings.Builder
	for i := 0; b.Len() < 5<<20; i++ {
		fmt.Fprintf(&b, "\tif (v_%d > 0) {\r\n\t\tcall(%d);\r\n\t}\r\n", i, i)
	}
	b.WriteString("\ttarget();\r\n\tafter();\r\n")
	for i := range 10 {
		fmt.Fprintf(&b, "\ttail_%d();\r\n", i)
	}
	return b.String()
}

// Issue 16: an edit of a large settled file plans on a mapping of it and
// writes from there; the file and the result are those of the same edit
// read into memory (the editor with undo_edit keeps the content, so it
// reads): CRLF kept, tabs kept, the same snippet.
func TestEditOfMappedFileMatchesRead(t *testing.T) {
	text := mappedText()
	want := strings.Replace(text, "\ttarget();\r\n\tafter();", "\ttarget(1);\r\n\tafter(2);", 1)
	mapped := writeFile(t, "mapped.c", text)
	read := writeFile(t, "read.c", text)
	waitOld(t, mapped)
	waitOld(t, read)
	old, new := "\ttarget();\n\tafter();", "\ttarget(1);\n\tafter(2);"

	got := ok(t, newTool(t, 0), replaceArgs(mapped, old, new))
	withUndo := NewAnthropic(tools.Host{}, AnthropicConfig{Type: AnthropicTypeV1})
	gotRead := ok(t, withUndo, replaceArgs(read, old, new))
	wantFile(t, mapped, want)
	wantFile(t, read, want)
	if strings.ReplaceAll(got, mapped, "F") != strings.ReplaceAll(gotRead, read, "F") {
		t.Fatalf("the mapped edit says\n%s\nthe read one\n%s", got, gotRead)
	}
	contains(t, got, "\ttarget(1);\n", "\tafter(2);\n", "tail_3();")
	noDebris(t, filepath.Dir(mapped))
}

// Issue 16: a program that ignores the locks and cuts the file short while
// an edit searches its mapping gets a refusal, not a crash of the runtime
// (SIGBUS on the lost pages, on the plan's goroutine and the text
// check's), and the file is left as that program left it.
func TestEditOfMappedFileCutShort(t *testing.T) {
	text := mappedText()
	p := writeFile(t, "cut.c", text)
	waitOld(t, p)
	testOnlyAfterRead = func(string) {
		testOnlyAfterRead = nil
		if err := os.Truncate(p, 8192); err != nil {
			t.Error(err)
		}
	}
	got := fails(t, newTool(t, 0), replaceArgs(p, "\ttarget();", "\ttarget(1);"))
	testOnlyAfterRead = nil
	contains(t, got, p+" changed on disk while this edit read it (it was cut short); read it again before changing it")
	wantFile(t, p, text[:8192])
	noDebris(t, filepath.Dir(p))

	// The same program cuts it short after the plan: the save's write
	// from the mapping finds the pages gone and writes nothing.
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	waitOld(t, p)
	testOnlyBeforeSave = func(string) {
		testOnlyBeforeSave = nil
		if err := os.Truncate(p, 8192); err != nil {
			t.Error(err)
		}
	}
	got = fails(t, newTool(t, 0), replaceArgs(p, "\ttarget();", "\ttarget(1);"))
	testOnlyBeforeSave = nil
	contains(t, got, p+" changed on disk after this edit read it (it was cut short); the edit was not made")
	wantFile(t, p, text[:8192])
	noDebris(t, filepath.Dir(p))
}

// Issue 16: a write between the mapping and the save that keeps the size
// and sets the modification time back is seen by the change time, as for
// a file read into memory (TestEditSeesAWriteThatKeepsSizeAndModTime);
// the mapping, which shows the write, is not trusted to tell.
func TestEditSeesAWriteToAMappedFile(t *testing.T) {
	text := mappedText()
	p := writeFile(t, "w.c", text)
	waitOld(t, p)
	testOnlyBeforeSave = writeHidingIt(t, p, "\tIF")
	got := fails(t, newTool(t, 0), replaceArgs(p, "\ttarget();", "\ttarget(1);"))
	testOnlyBeforeSave = nil
	contains(t, got, p+" changed on disk after this edit read it (it was written to); the edit was not made")
	if b := []byte(readFile(t, p)); !bytes.HasPrefix(b, []byte("\tIF (v_0")) || len(b) != len(text) || bytes.Contains(b, []byte("target(1)")) {
		t.Fatal("the other program's write was not kept as it left it")
	}
	noDebris(t, filepath.Dir(p))
}
