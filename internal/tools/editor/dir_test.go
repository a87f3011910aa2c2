package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// mkTree creates files (and their directories) under root; a name ending
// in "/" is an empty directory.
func mkTree(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, n)
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 5: a directory view is in-process, two levels deep, sorted, marks
// directories with "/", leaves out and counts hidden entries at both
// levels, lists noise directories without descending, and works on names
// with spaces.
func TestViewDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root,
		"b.txt", "a file.txt", "src/main.go", "src/util/deep.go", "src/.hidden.go",
		".git/config", ".env", "node_modules/left-pad/index.js", "py/__pycache__/x.pyc",
		"env/pyvenv.cfg", "env/lib/site.py", "docs/", "my dir/inner file.md")
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": root})
	want := strings.Join([]string{
		root + "/",
		root + "/a file.txt",
		root + "/b.txt",
		root + "/docs/",
		root + "/env/",
		root + "/my dir/",
		root + "/my dir/inner file.md",
		root + "/node_modules/",
		root + "/py/",
		root + "/py/__pycache__/",
		root + "/src/",
		root + "/src/main.go",
		root + "/src/util/",
		"[not expanded, as dependency or cache folders: env/, node_modules/. View one by its path to list it]",
		`[3 hidden entries (names starting with a dot) not shown; view one by its path, or run ls -a with bash]`,
	}, "\n")
	if got != want {
		t.Fatalf("listing =\n%s\n\nwant\n%s", got, want)
	}
	lacks(t, got, "deep.go", "left-pad", "site.py", "x.pyc")
}

// The hidden filter applies below the root only: a root inside a hidden
// directory still lists (peers listed nothing there).
func TestViewDirectoryInsideHidden(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), ".cache", "proj")
	mkTree(t, root, "a.txt", "sub/b.txt")
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": root})
	if got != root+"/\n"+root+"/a.txt\n"+root+"/sub/\n"+root+"/sub/b.txt" {
		t.Fatalf("listing = %q", got)
	}
}

func TestViewDirectoryEmpty(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	tl := newTool(t, 0)
	contains(t, ok(t, tl, map[string]any{"command": "view", "path": root}), "[empty directory]")
	mkTree(t, root, ".only")
	contains(t, ok(t, tl, map[string]any{"command": "view", "path": root}), "[no visible entries]", "1 hidden entry")
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": root, "view_range": []int{1, 2}}), "is a directory")
}

// Symlinked directories are marked and never followed.
func TestViewDirectorySymlinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	mkTree(t, outside, "secret.txt")
	mkTree(t, root, "real.txt")
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": root})
	contains(t, got, root+"/out/ -> "+outside+"\n", root+"/link.txt -> real.txt\n")
	lacks(t, got, "secret.txt")
}

// One huge subdirectory is capped and counted; the total is bounded by the
// output limit with a count of what was left out.
func TestViewDirectoryCaps(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var names []string
	for i := range 120 {
		names = append(names, fmt.Sprintf("big/f%03d.txt", i))
	}
	names = append(names, "small/a.txt")
	mkTree(t, root, names...)
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": root})
	contains(t, got, "big/f049.txt\n", "[only the first 50 entries of a subdirectory are shown: big/ (70 more)", root+"/small/a.txt")
	lacks(t, got, "f050")

	// Budget: many top-level entries.
	flat := t.TempDir()
	names = names[:0]
	for i := range 400 {
		names = append(names, fmt.Sprintf("file-%04d.txt", i))
	}
	mkTree(t, flat, names...)
	got = ok(t, newTool(t, 3000), map[string]any{"command": "view", "path": flat})
	if n := utf8.RuneCountInString(got); n > 3000 {
		t.Fatalf("listing has %d characters, limit 3000", n)
	}
	contains(t, got, "[output limit reached: ", "more entries not shown")
	shown := strings.Count(got, "\n"+flat+"/file-")
	if !strings.Contains(got, fmt.Sprintf("%d more entries", 400-shown)) {
		t.Fatalf("shown %d entries but the count is wrong:\n%s", shown, got[len(got)-300:])
	}
}

// A name with a newline is quoted so the one-entry-per-line format holds.
func TestViewDirectoryOddNames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root, "two\nlines.txt")
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": root})
	contains(t, got, `"`+root+`/two\nlines.txt"`)
}
