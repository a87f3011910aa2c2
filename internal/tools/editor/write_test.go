package editor

import (
	"github.com/shellport/shellport/internal/tools/fileio"
	"os"
	"path/filepath"
	"testing"
)

// Issue 5: an edit keeps the file's mode bits (an executable stays
// executable) and leaves no temporary file.
func TestEditKeepsMode(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "run.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	ok(t, tl, replaceArgs(p, "hi", "hello"))
	ok(t, tl, insertArgs(p, 2, "exit 0"))
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v after edits, want 0750", fi.Mode().Perm())
	}
	wantFile(t, p, "#!/bin/sh\necho hello\nexit 0\n")
	noDebris(t, filepath.Dir(p))
}

// Issue 5: editing through a symlink changes the target and the link stays
// a link — through a chain of relative links into another directory too.
func TestEditThroughSymlink(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	realDir := t.TempDir()
	target := filepath.Join(realDir, "config.yml")
	if err := os.WriteFile(target, []byte("debug: false\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	linkDir := t.TempDir()
	mid := filepath.Join(linkDir, "mid.yml")
	link := filepath.Join(linkDir, "config.yml")
	if err := os.Symlink(target, mid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mid.yml", link); err != nil {
		t.Fatal(err)
	}
	got := ok(t, tl, replaceArgs(link, "false", "true"))
	contains(t, got, link+" is a symbolic link; the edit went to "+target)
	wantFile(t, target, "debug: true\n")
	for _, l := range []string{link, mid} {
		fi, err := os.Lstat(l)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symlink (%v, %v)", l, fi, err)
		}
	}
	if dest, _ := os.Readlink(link); dest != "mid.yml" {
		t.Fatalf("link now points to %q", dest)
	}
	fi, _ := os.Stat(target)
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("target mode %v, want 0640", fi.Mode().Perm())
	}
	noDebris(t, linkDir)
	noDebris(t, realDir)

	// A dangling link cannot be edited.
	dangling := filepath.Join(linkDir, "dangling")
	if err := os.Symlink(filepath.Join(realDir, "gone"), dangling); err != nil {
		t.Fatal(err)
	}
	contains(t, fails(t, tl, replaceArgs(dangling, "a", "b")), "does not exist")
}

// Writing a temporary file beside a very long name must not exceed the
// name limit.
func TestEditLongFileName(t *testing.T) {
	t.Parallel()
	name := ""
	for len(name) < fileio.MaxNameBytes-4 {
		name += "n"
	}
	p := writeFile(t, name+".txt", "old\n")
	ok(t, newTool(t, 0), replaceArgs(p, "old", "new"))
	wantFile(t, p, "new\n")
}
