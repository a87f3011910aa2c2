//go:build linux

package persistent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Issue 16: without $TMPDIR a shell's private directory is made on a
// memory file system, where its inodes cost next to nothing; with $TMPDIR
// set it is made there; either is gone once the shell is running (so a
// runtime killed later leaves no directory behind).
func TestPrivateDirPlacement(t *testing.T) {
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC || unix.Access("/dev/shm", unix.W_OK|unix.X_OK) != nil {
		t.Skip("no writable tmpfs at /dev/shm")
	}
	t.Setenv("TMPDIR", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	f := newFixture(t, Config{})
	f.expect("echo in memory", "in memory\n")
	shm := f.shellOf("s").dir
	if filepath.Dir(shm) != "/dev/shm" || !strings.HasPrefix(filepath.Base(shm), privateDirPrefix) {
		t.Fatalf("private directory %q, want one in /dev/shm", shm)
	}

	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if res := f.runIn("t", "echo on disk"); res.Text != "on disk\n" {
		t.Fatalf("second session: %q", res.Text)
	}
	if dir := f.shellOf("t").dir; filepath.Dir(dir) != tmp {
		t.Fatalf("private directory %q with TMPDIR=%s", dir, tmp)
	}

	for _, dir := range []string{shm, f.shellOf("t").dir} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("private directory %q with the shell running: %v", dir, err)
		}
	}
}
