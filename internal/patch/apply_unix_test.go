//go:build unix

package patch

import (
	"path/filepath"
	"syscall"
	"testing"
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
