package fileio

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func write(t *testing.T, p, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// openAndRead locks p and reads it as text, as an edit does first; the
// caller releases the lock.
func openAndRead(t *testing.T, p string) (*Locked, []byte, func()) {
	t.Helper()
	lf, release, err := OpenLocked(context.Background(), p, p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := lf.ReadText(p, "bash")
	if err != nil {
		release()
		t.Fatal(err)
	}
	return lf, data, release
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noDebris fails if a temporary or set-aside file is left in dir.
func noDebris(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".shellport-") {
			t.Fatalf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func TestCheckPathRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, want string }{
		{"", "path is required"},
		{"a\x00b", "NUL"},
		{"/" + strings.Repeat("a/", 2100), "path is too long"},
		{"/x/" + strings.Repeat("n", 300), "path component"},
		{"~/x", "starts with ~"},
	} {
		err := CheckPath(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckPath(%.20q) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if err := CheckPath("rel/ok.txt"); err != nil {
		t.Errorf("relative path refused: %v", err)
	}
}

func TestAbsResolvesAgainstCwd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, cwd, want string }{
		{"a/b.txt", "/repo", "/repo/a/b.txt"},
		{"../etc/passwd", "/repo", "/etc/passwd"},
		{"/abs/./x/../y", "/repo", "/abs/y"},
		{"./x", "/repo/", "/repo/x"},
	} {
		got, err := Abs(tc.path, tc.cwd)
		if err != nil || got != tc.want {
			t.Errorf("Abs(%q, %q) = %q, %v; want %q", tc.path, tc.cwd, got, err, tc.want)
		}
	}
	if _, err := Abs("rel", ""); err == nil || !strings.Contains(err.Error(), "no session directory") {
		t.Errorf("relative path without cwd: %v", err)
	}
}

func TestResolveMissingTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(filepath.Join(dir, "link", "new", "file.txt"))
	if err != nil || got != filepath.Join(real, "new", "file.txt") {
		t.Fatalf("Resolve = %q, %v", got, err)
	}
	if err := os.Symlink(filepath.Join(real, "gone"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(filepath.Join(dir, "dangling")); err == nil {
		t.Fatal("a dangling link resolved")
	}
	got, err = ResolveDir(filepath.Join(dir, "link", "dangling"))
	if err != nil || got != filepath.Join(real, "dangling") {
		t.Fatalf("ResolveDir = %q, %v", got, err)
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	allow := Within(root)
	for _, p := range []string{root, filepath.Join(root, "a"), filepath.Join(root, "a", "b")} {
		if err := allow(p, true); err != nil {
			t.Errorf("%s refused: %v", p, err)
		}
	}
	for _, p := range []string{filepath.Dir(root), root + "x", "/etc/passwd", filepath.Join(root, "..", "y")} {
		if err := allow(filepath.Clean(p), true); err == nil {
			t.Errorf("%s allowed", p)
		}
	}
}

func TestReadTextRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	write(t, bin, "a\x00b", 0o644)
	bad := filepath.Join(dir, "latin1")
	write(t, bad, "ok\ncaf\xe9\n", 0o644)
	for _, tc := range []struct {
		path string
		want error
	}{
		{bin, ErrBinary}, {bad, ErrNotUTF8}, {dir, ErrIsDir}, {filepath.Join(dir, "none"), ErrNotFound},
	} {
		_, _, err := ReadText(tc.path, tc.path, "bash")
		if !errors.Is(err, tc.want) {
			t.Errorf("ReadText(%s) = %v, want %v", tc.path, err, tc.want)
		}
	}
	if _, _, err := ReadText(bad, bad, "bash"); !strings.Contains(err.Error(), "line 2") {
		t.Errorf("invalid UTF-8 error does not name line 2: %v", err)
	}
}

func TestReplaceKeepsModeAndLeavesNoDebris(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "run.sh")
	write(t, p, "old\n", 0o750)
	fi, _, err := ReadText(p, p, "bash")
	if err != nil {
		t.Fatal(err)
	}
	if err := Replace(p, fi, []byte("ne"), []byte("w\n")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "new\n" {
		t.Fatalf("content %q", got)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v", st.Mode())
	}
	noDebris(t, dir)
}

func TestCreateNewNeverOverwrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	write(t, p, "keep", 0o644)
	if err := CreateNew(p, []byte("new"), nil); !errors.Is(err, ErrExists) {
		t.Fatalf("CreateNew over a file: %v", err)
	}
	if got := read(t, p); got != "keep" {
		t.Fatalf("file changed to %q", got)
	}
	like, _ := os.Stat(p)
	if err := os.Chmod(p, 0o700); err != nil {
		t.Fatal(err)
	}
	like, _ = os.Stat(p)
	q := filepath.Join(dir, "y")
	if err := CreateNew(q, []byte("moved"), like); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(q); st.Mode().Perm() != 0o700 {
		t.Fatalf("mode of a file made like another: %v", st.Mode())
	}
	noDebris(t, dir)
}

func TestMoveAsideRestore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, "data", 0o600)
	before, _ := os.Stat(p)
	aside, err := MoveAside(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file still there: %v", err)
	}
	if err := Restore(aside, p); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) || read(t, p) != "data" {
		t.Fatal("restore did not bring back the same file")
	}
	aside, err = MoveAside(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Discard(aside); err != nil {
		t.Fatal(err)
	}
	noDebris(t, dir)
}

func TestUnchangedSeesAWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, "one\n", 0o644)
	lf, data, release := openAndRead(t, p)
	defer release()
	if err := lf.Unchanged(data); err != nil {
		t.Fatalf("unchanged file reported: %v", err)
	}
	if err := os.WriteFile(p, []byte("two\n"), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	if err := lf.Unchanged(data); !errors.Is(err, ErrChanged) || err.Error() != "it was written to" {
		t.Fatalf("rewritten file: %v", err)
	}
	if err := os.Rename(filepath.Join(dir, "f"), filepath.Join(dir, "g")); err != nil {
		t.Fatal(err)
	}
	if err := lf.Unchanged(data); !errors.Is(err, ErrChanged) || err.Error() != "it was replaced or removed" {
		t.Fatalf("renamed file: %v", err)
	}
}

func TestWholeSpansOnlyTheDifference(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ old, new string }{
		{"abcdef", "abXdef"}, {"abc", "abc"}, {"", "new"}, {"old", ""}, {"aaa", "aaaa"}, {"abab", "ab"},
	} {
		c := Whole([]byte(tc.old), []byte(tc.new))
		got := tc.old[:c.Start] + string(c.Text) + tc.old[c.End:]
		if got != tc.new || c.Start > c.End {
			t.Errorf("Whole(%q, %q) = %+v, which makes %q", tc.old, tc.new, c, got)
		}
	}
	if c := Whole([]byte("abcdef"), []byte("abXdef")); c.Start != 2 || c.End != 3 {
		t.Errorf("Whole spans %d-%d, want 2-3", c.Start, c.End)
	}
}

// Issue 10, shared by the editor and apply_patch: a file with two hard
// links is written in place (both names see the change), and Undo puts
// the old content back the same way.
func TestSaveKeepsHardLinksAndUndoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, other := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	write(t, p, "one\ntwo\n", 0o640)
	if err := os.Link(p, other); err != nil {
		t.Skipf("hard links: %v", err)
	}
	lf, data, release := openAndRead(t, p)
	defer release()
	now := []byte("one\nTWO\n")
	how, err := lf.Save(data, Whole(data, now))
	if err != nil || !how.InPlace || !strings.Contains(how.Why, "2 hard links") {
		t.Fatalf("Save = %+v, %v", how, err)
	}
	if read(t, other) != "one\nTWO\n" {
		t.Fatalf("the other name does not see the change: %q", read(t, other))
	}
	if err := lf.Undo(now, data); err != nil {
		t.Fatal(err)
	}
	if read(t, other) != "one\ntwo\n" || read(t, p) != "one\ntwo\n" {
		t.Fatal("undo did not restore both names")
	}
	noDebris(t, dir)
}

// LockFiles takes the locks of several files in one order whatever order
// they are named in, and gives two names of one file one entry: two
// callers naming the same hard-linked files crosswise never deadlock.
func TestLockFilesCrosswiseNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	write(t, x, "x\n", 0o644)
	write(t, y, "y\n", 0o644)
	x2, y2 := filepath.Join(dir, "x2"), filepath.Join(dir, "y2")
	if err := os.Link(x, x2); err != nil {
		t.Skipf("hard links: %v", err)
	}
	if err := os.Link(y, y2); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			names := []string{x, y2}
			if i%2 == 1 {
				names = []string{y, x2}
			}
			for range 100 {
				files, release, err := LockFiles(context.Background(), names, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if len(files) != 2 || files[0] == files[1] {
					t.Error("two files expected")
				}
				release()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a hang guard, not a speed check
		t.Fatal("LockFiles deadlocked")
	}
	files, release, err := LockFiles(context.Background(), []string{x, x2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if files[0] != files[1] {
		t.Fatal("two names of one file got two entries")
	}
}

// A lock that is held makes a caller wait until its context ends, and it
// then holds nothing.
func TestLockGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	unlock, err := Lock(context.Background(), "/l/held")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Lock(ctx, "/l/free", "/l/held"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock with a cancelled context: %v", err)
	}
	again, err := Lock(context.Background(), "/l/free")
	if err != nil {
		t.Fatal(err)
	}
	again()
}

func TestMkdirAllReportsWhatItMade(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	made, err := MkdirAll(filepath.Join(dir, "a", "b", "c"))
	if err != nil || len(made) != 3 || made[0] != filepath.Join(dir, "a") {
		t.Fatalf("MkdirAll = %v, %v", made, err)
	}
	write(t, filepath.Join(dir, "file"), "", 0o644)
	if _, err := MkdirAll(filepath.Join(dir, "file", "sub")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("MkdirAll under a file: %v", err)
	}
}

// Lock serialises holders of a common path and never deadlocks callers
// that lock overlapping sets in different orders.
func TestLockOverlappingSets(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	inside := map[string]int{}
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{"/l/a", "/l/b", "/l/c"}
			if i%2 == 1 {
				paths = []string{"/l/c", "/l/a", "/l/a"}
			}
			held := map[string]bool{}
			for _, p := range paths {
				held[p] = true
			}
			for range 200 {
				unlock, err := Lock(context.Background(), paths...)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for p := range held {
					if inside[p]++; inside[p] > 1 {
						t.Errorf("two holders of %s", p)
					}
				}
				mu.Unlock()
				runtime.Gosched() // give another holder the chance to get in
				mu.Lock()
				for p := range held {
					inside[p]--
				}
				mu.Unlock()
				unlock()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a hang guard, not a speed check
		t.Fatal("Lock deadlocked")
	}
	locks.mu.Lock()
	defer locks.mu.Unlock()
	for _, p := range []string{"/l/a", "/l/b", "/l/c"} {
		if locks.by[fileKey{path: p}] != nil {
			t.Fatalf("the lock entry of %s was left", p)
		}
	}
}
