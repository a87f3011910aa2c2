//go:build unix

package patch

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools/fileio"
)

// FIFOs are refused without blocking, for an update and for a delete.
func TestApplyRefusesFIFO(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "a\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	applyFails(t, dir, "*** Begin Patch\n*** Update File: pipe\n-a\n+b\n*** End Patch\n", nil, "named pipe")
	applyFails(t, dir, "*** Begin Patch\n*** Delete File: pipe\n*** End Patch\n", nil, "named pipe")
}

// Issue 12 (one file-access layer): apply_patch writes a file with two
// hard links in place, as the editor does, so both names see the change.
func TestApplyKeepsHardLinks(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "one\ntwo\n"})
	if err := os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")); err != nil {
		t.Skipf("hard links: %v", err)
	}
	before := inode(t, filepath.Join(dir, "a.txt"))
	mustApply(t, dir, "*** Begin Patch\n*** Update File: a.txt\n one\n-two\n+TWO\n*** End Patch\n")
	wantFile(t, filepath.Join(dir, "b.txt"), "one\nTWO\n")
	if inode(t, filepath.Join(dir, "a.txt")) != before {
		t.Fatal("the file was replaced, splitting its hard links")
	}
	noDebris(t, dir)
}

// Issue 12 (one file-access layer): apply_patch waits for the lock the
// editor holds on a file while it edits it, taken through another name of
// the file, and reads the file only once the edit is on disk.
func TestApplyWaitsForTheEditorsLock(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "one\n"})
	real := filepath.Join(dir, "other.txt")
	if err := os.Link(filepath.Join(dir, "a.txt"), real); err != nil {
		t.Skipf("hard links: %v", err)
	}
	lf, release, err := fileio.OpenLocked(context.Background(), real, real) // what the editor takes
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("*** Begin Patch\n*** Update File: a.txt\n-two\n+THREE\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Apply(context.Background(), p, Options{Cwd: dir})
		done <- err
	}()
	// No event says the patch is waiting; watch for a while that it does
	// not finish (it cannot, while the lock is held).
	select {
	case err := <-done:
		t.Fatalf("the patch ran while the editor held the file: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	data, err := lf.ReadText(real, "bash")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lf.Save(data, fileio.Whole(data, []byte("two\n"))); err != nil { // the edit lands
		t.Fatal(err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("the patch, run after the edit: %v", err)
	}
	wantFile(t, filepath.Join(dir, "a.txt"), "THREE\n")
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// Issue 18: TestApplyRollbackRealFailure locks the directory with the
// immutable attribute as root and with its mode as anyone else; a root run
// covers the second way too, as nobody.
func TestApplyRollbackRealFailureUnprivileged(t *testing.T) {
	if testkit.RunAsNobody(t) {
		return
	}
	if os.Geteuid() == 0 {
		t.Fatal("RunAsNobody ran the body as root")
	}
	TestApplyRollbackRealFailure(t)
}
