//go:build linux

package editor

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Issue 10: an edit keeps the file's extended attributes (user data here,
// ACLs and security labels the same way) while still replacing the file
// atomically.
func TestEditKeepsXattrs(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "attrs.txt", "a\nb\n")
	if err := unix.Setxattr(p, "user.shellport.test", []byte("kept"), 0); err != nil {
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
			t.Skipf("user extended attributes on %s: %v", filepath.Dir(p), err)
		}
		t.Fatal(err)
	}
	res := run(t, newTool(t, 0), "", replaceArgs(p, "b", "B"))
	if res.IsError || res.Structured["inPlace"] != false {
		t.Fatalf("%+v", res)
	}
	wantFile(t, p, "a\nB\n")
	buf := make([]byte, 64)
	n, err := unix.Getxattr(p, "user.shellport.test", buf)
	if err != nil || string(buf[:n]) != "kept" {
		t.Fatalf("extended attribute after the edit: %q, %v", buf[:n], err)
	}
}

// Issue 10: a bind-mounted file (a mount point, which no rename can
// replace) is edited in place, and the result says why.
func TestEditBindMountedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "source.txt")
	target := filepath.Join(dir, "mounted.txt")
	if err := os.WriteFile(src, []byte("config = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount a file (%v); this needs root", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(target, unix.MNT_DETACH) })
	res := run(t, newTool(t, 0), "", replaceArgs(target, "config = 1", "config = 2"))
	if res.IsError {
		t.Fatal(res.Text)
	}
	contains(t, res.Text, "[written in place, since it is a mount point, which a new file cannot replace]")
	wantFile(t, target, "config = 2\n")
	wantFile(t, src, "config = 2\n")
	noDebris(t, dir)
}
