//go:build linux

package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fsImmutableFL is FS_IMMUTABLE_FL from linux/fs.h, which x/sys/unix does
// not export.
const fsImmutableFL = 0x00000010

// readOnlyDir makes dir refuse new files, even for root: mode 0555, plus
// the immutable attribute when the process may bypass permissions. It
// skips the test when neither works.
func readOnlyDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	probe := filepath.Join(dir, "probe")
	f, err := os.Create(probe)
	if err != nil {
		return // the mode is enough
	}
	f.Close()
	_ = os.Remove(probe)
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	flags, err := unix.IoctlGetUint32(int(d.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(d.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutableFL))
	}
	if err != nil {
		t.Skipf("cannot make %s read-only as uid %d: %v", dir, os.Geteuid(), err)
	}
	t.Cleanup(func() {
		d, err := os.Open(dir)
		if err != nil {
			t.Error(err)
			return
		}
		defer d.Close()
		if err := unix.IoctlSetPointerInt(int(d.Fd()), unix.FS_IOC_SETFLAGS, int(flags)); err != nil {
			t.Errorf("clearing the immutable flag of %s: %v", dir, err)
		}
	})
}

// Issue 5: when the write fails (read-only directory), the original stays
// intact and the error names the real path, never a temporary name.
func TestEditReadOnlyDirLeavesOriginal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(p, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	readOnlyDir(t, dir)
	tl := newTool(t, 0)
	got := fails(t, tl, replaceArgs(p, "precious", "gone"))
	contains(t, got, "cannot write "+p+": ", "left unchanged")
	lacks(t, got, ".shellport-", ".tmp")
	got = fails(t, tl, insertArgs(p, 0, "x"))
	contains(t, got, "cannot write "+p)
	wantFile(t, p, "precious\n")
	contains(t, fails(t, tl, map[string]any{"command": "create", "path": filepath.Join(dir, "new.txt"), "file_text": "x"}), "cannot create")
	noDebris(t, dir)

	// Through a symlink, the error names the file that could not be written.
	link := filepath.Join(t.TempDir(), "link.txt")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	contains(t, fails(t, tl, replaceArgs(link, "precious", "gone")), "cannot write "+p+" (reached through "+link+")")
	wantFile(t, p, "precious\n")
}

// Issue 5: a write that fails half-way (here: the file size limit, which
// binds root too) leaves the original intact and no temporary file. The
// limit is process-wide, so this test does not run in parallel.
func TestEditFailedWriteLeavesOriginal(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	content := "UNIQUE\n" + strings.Repeat("0123456789abcdef\n", 8192) // 136 KiB
	p := writeFile(t, "big.txt", content)
	lim := unix.Rlimit{Cur: 64 << 10, Max: old.Max}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	res := run(t, newTool(t, 0), "", replaceArgs(p, "UNIQUE", "changed"))
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
		t.Fatalf("restoring RLIMIT_FSIZE: %v", err)
	}
	if !res.IsError {
		t.Fatalf("edit under a 64 KiB file size limit succeeded: %s", res.Text)
	}
	contains(t, res.Text, "cannot write "+p+": ", "left unchanged")
	lacks(t, res.Text, ".shellport-")
	wantFile(t, p, content)
	noDebris(t, filepath.Dir(p))
}
