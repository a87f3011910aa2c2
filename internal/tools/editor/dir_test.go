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
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": root, "view_range": []int{1, 2}}), "view_range start 1 is past the end of the listing of "+root+", which has 0 entries")
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
	shown := strings.Count(got, "\n"+flat+"/file-")
	contains(t, got, fmt.Sprintf("[output limit reached: entries 1 to %d of the listing are shown; view_range [%d, -1] lists the ones after them]", shown, shown+1))
}

// Issue 11: a listing too long for one result names the view_range that
// continues it, and following those ranges reaches every entry, once, in
// order; the notes never send the model to subdirectories that do not
// exist.
func TestViewDirectoryPagesReachEveryEntry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		names func() []string
	}{
		{"flat", func() (n []string) {
			for i := range 400 {
				n = append(n, fmt.Sprintf("file-%04d.txt", i))
			}
			return n
		}},
		{"with subdirectories", func() (n []string) {
			for i := range 40 {
				for j := range 8 {
					n = append(n, fmt.Sprintf("d%02d/f%d.txt", i, j))
				}
			}
			return n
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			names := tc.names()
			mkTree(t, root, names...)
			tl := newTool(t, 3000)
			var seen []string
			args := map[string]any{"command": "view", "path": root}
			for page := 0; ; page++ {
				if page > 100 {
					t.Fatal("paging does not end")
				}
				got := ok(t, tl, args)
				if n := utf8.RuneCountInString(got); n > 3000 {
					t.Fatalf("page of %d characters, limit 3000", n)
				}
				lacks(t, got, "subdirectory")
				for _, line := range strings.Split(got, "\n")[1:] {
					if strings.HasPrefix(line, root+"/") {
						seen = append(seen, strings.TrimPrefix(line, root+"/"))
					}
				}
				var next int
				if _, err := fmt.Sscanf(got[strings.LastIndex(got, "view_range [")+len("view_range ["):], "%d, -1]", &next); err != nil {
					break // the last page names no next range
				}
				args = map[string]any{"command": "view", "path": root, "view_range": []int{next, -1}}
			}
			var want []string
			for _, n := range names {
				if d := filepath.Dir(n); d != "." && (len(want) == 0 || want[len(want)-1] != d+"/" && !strings.HasPrefix(want[len(want)-1], d+"/")) {
					want = append(want, d+"/")
				}
				want = append(want, n)
			}
			if strings.Join(seen, "\n") != strings.Join(want, "\n") {
				t.Fatalf("pages listed %d entries, want %d:\n%s", len(seen), len(want), strings.Join(seen, "\n"))
			}
		})
	}
}

// Issue 11: view_range selects entries of a directory's listing; past its
// end it says how many there are.
func TestViewDirectoryRange(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root, "a.txt", "b/c.txt", "b/d.txt", "e.txt")
	tl := newTool(t, 0)
	got := ok(t, tl, map[string]any{"command": "view", "path": root, "view_range": []int{2, 3}})
	want := root + "/\n" + root + "/b/\n" + root + "/b/c.txt\n[entries 2 to 3 of the listing; view_range [4, -1] lists the ones after them]"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	got = ok(t, tl, map[string]any{"command": "view", "path": root, "view_range": []int{4, -1}})
	if got != root+"/\n"+root+"/b/d.txt\n"+root+"/e.txt\n[entries 4 to 5 of the listing, which has 5]" {
		t.Fatalf("got\n%s", got)
	}
	contains(t, fails(t, tl, map[string]any{"command": "view", "path": root, "view_range": []int{6, -1}}), "view_range start 6 is past the end of the listing of "+root+", which has 5 entries")
}

// A name with a newline is quoted so the one-entry-per-line format holds.
func TestViewDirectoryOddNames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root, "two\nlines.txt")
	got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": root})
	contains(t, got, `"`+root+`/two\nlines.txt"`)
}
