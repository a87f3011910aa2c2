//go:build unix

package editor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Issue 10: editing one name of a hard-linked file changes the file every
// name shows: the edit is written in place, the link count and inode stay,
// and the result says why it was written in place.
func TestEditKeepsHardLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("one\ntwo\nthree\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "b.txt")
	if err := os.Link(p, other); err != nil {
		t.Skipf("hard links: %v", err)
	}
	before := inode(t, p)
	tl := newTool(t, 0)
	res := run(t, tl, "", replaceArgs(p, "two", "TWO, a longer line than before"))
	if res.IsError {
		t.Fatal(res.Text)
	}
	contains(t, res.Text, "[written in place, since it has 2 hard links, which a new file would not share]")
	if res.Structured["inPlace"] != true {
		t.Fatalf("inPlace %v", res.Structured["inPlace"])
	}
	wantFile(t, other, "one\nTWO, a longer line than before\nthree\n")
	ok(t, tl, replaceArgs(other, "TWO, a longer line than before\n", "")) // shrinks
	wantFile(t, p, "one\nthree\n")
	if inode(t, p) != before || inode(t, other) != before || stat(t, p).Sys().(*syscall.Stat_t).Nlink != 2 {
		t.Fatalf("the link was split: inodes %d %d (was %d), %d links", inode(t, p), inode(t, other), before, stat(t, p).Sys().(*syscall.Stat_t).Nlink)
	}
	if fi := stat(t, p); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}
	noDebris(t, dir)
	noDebris(t, os.TempDir())
}

// Issue 10: an in-place write that fails half-way (the file size limit
// binds root too) puts the old content back and leaves no backup behind.
func TestInPlaceWriteFailureRestores(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	content := "UNIQUE\n"
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p, filepath.Join(dir, "b.txt")); err != nil {
		t.Skipf("hard links: %v", err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	lim := syscall.Rlimit{Cur: 64 << 10, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	big := repeat("0123456789abcdef\n", 8192) // 136 KiB
	res := run(t, newTool(t, 0), "", replaceArgs(p, "UNIQUE\n", big))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatalf("restoring RLIMIT_FSIZE: %v", err)
	}
	if !res.IsError {
		t.Fatalf("an in-place write past the file size limit succeeded: %s", res.Text)
	}
	contains(t, res.Text, "cannot write "+p+": ", "left unchanged")
	wantFile(t, p, content)
	noDebris(t, dir)
}

func stat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	return stat(t, p).Sys().(*syscall.Stat_t).Ino
}

func repeat(s string, n int) string {
	b := make([]byte, 0, len(s)*n)
	for range n {
		b = append(b, s...)
	}
	return string(b)
}
