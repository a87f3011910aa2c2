//go:build linux

package persistent

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// fullTmpdir mounts a small tmpfs as $TMPDIR for the test and returns a
// function that fills it to the last byte and the last inode.
func fullTmpdir(t *testing.T) (fill func()) {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=512k,nr_inodes=64"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v); this needs root", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	t.Setenv("TMPDIR", dir)
	return func() {
		t.Helper()
		w, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		chunk := make([]byte, 4096)
		for {
			if _, err := w.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
		for i := 0; ; i++ {
			if err := os.WriteFile(filepath.Join(dir, "inode"+strconv.Itoa(i)), nil, 0o600); err != nil {
				break
			}
		}
	}
}

// Issue 10: with $TMPDIR full, a command longer than the space left runs in
// the same shell (through the control FIFO instead of the inbox), and the
// result says nothing was reset because nothing was.
func TestFullTmpdirLongCommandRuns(t *testing.T) {
	fill := fullTmpdir(t)
	f := newFixture(t, Config{})
	f.expect("cd /; kept=yes", "[no output]")
	sh := f.shellOf("s")
	fill()
	long := strings.Repeat("x", 256<<10)
	res := f.expect("v="+long+"; echo ${#v} $kept $PWD", "262144 yes /\n")
	if structured(t, res, "shellReset") != false {
		t.Fatalf("shellReset %v", res.Structured["shellReset"])
	}
	f.expect("echo short", "short\n")
	if f.shellOf("s") != sh {
		t.Fatal("the shell was replaced")
	}
}

// Issue 10: when even a shell's private directory cannot be made, the call
// fails with a result that says so, not an internal error.
func TestFullTmpdirNoShellSaysSo(t *testing.T) {
	fill := fullTmpdir(t)
	fill()
	f := newFixture(t, Config{})
	res, err := f.callIn(t.Context(), "s", "echo hi")
	if err != nil {
		t.Fatalf("Call: %v (want a result saying the shell could not start)", err)
	}
	if !res.IsError || !strings.Contains(res.Text, "could not start a shell for this command, so it did not run") {
		t.Fatalf("got %+v", res)
	}
}
