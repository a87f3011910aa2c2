package editor

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 5: create writes file_text exactly — CRLF, tabs, BOM, no final
// newline — and creates missing parents.
func TestCreateExact(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"crlf.txt": "a\r\nb\r\n", "tabs.mk": "x:\n\techo\t1\n", "bom.txt": "\xEF\xBB\xBFhi", "empty.txt": "",
	} {
		p := filepath.Join(dir, name)
		got := ok(t, tl, map[string]any{"command": "create", "path": p, "file_text": text})
		contains(t, got, "Created "+p)
		wantFile(t, p, text)
	}
	p := filepath.Join(dir, "new", "deep", "f.go")
	got := ok(t, tl, map[string]any{"command": "create", "path": p, "file_text": "package f\n"})
	contains(t, got, "Created "+p+" (1 line, 10 bytes)", "starting at "+filepath.Join(dir, "new"))
	wantFile(t, p, "package f\n")
	noDebris(t, dir)
	noDebris(t, filepath.Dir(p))
}

// New files get the usual permissions (0666 less the umask), not a
// temporary file's 0600.
func TestCreateMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, _ := os.Stat(probe)
	p := filepath.Join(dir, "f.txt")
	ok(t, newTool(t, 0), map[string]any{"command": "create", "path": p, "file_text": "x"})
	got, _ := os.Stat(p)
	if got.Mode().Perm() != want.Mode().Perm() {
		t.Fatalf("created with %v, want %v", got.Mode().Perm(), want.Mode().Perm())
	}
}

// Issue 5: create refuses an existing path and changes nothing: a file, a
// directory, a dangling symlink.
func TestCreateRefusesExisting(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "f.txt", "original")
	contains(t, fails(t, tl, map[string]any{"command": "create", "path": p, "file_text": "new"}), "already exists (a file)", "never overwrites")
	wantFile(t, p, "original")

	dir := t.TempDir()
	contains(t, fails(t, tl, map[string]any{"command": "create", "path": dir, "file_text": "x"}), "already exists (a directory)")

	link := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	contains(t, fails(t, tl, map[string]any{"command": "create", "path": link, "file_text": "x"}), "already exists (a symbolic link)")
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Fatal("create wrote through a dangling symlink")
	}

	file := writeFile(t, "plain", "x")
	contains(t, fails(t, tl, map[string]any{"command": "create", "path": filepath.Join(file, "child.txt"), "file_text": "x"}), "not a directory")
	contains(t, fails(t, tl, map[string]any{"command": "create", "path": filepath.Join(dir, "nofile")}), "requires file_text")
}
