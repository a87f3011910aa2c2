//go:build linux

package persistent

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// privateBases are where a shell's private directory is made when $TMPDIR
// does not say otherwise: the user's runtime directory, then the shared
// memory directory, each only when it is a memory file system the runtime
// may write. Making the directory and its three files costs an inode
// each; on a disk file system that is busy creating and deleting files
// (ext4's allocator then searches its tables for inodes not recently
// freed) that was 0.6 to 3 ms of CPU per shell, most of an open's cost
// beyond the raw-PTY floor, against 0.04 ms on tmpfs (issue 16). The
// files hold no data but the inbox's commands, and the inbox's storage is
// released as the shell reads it (see releaseInbox).
func privateBases() []string {
	if os.Getenv("TMPDIR") != "" {
		return nil // the user's choice
	}
	var out []string
	for _, dir := range []string{os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm"} {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if !onMemoryFS(dir) {
			continue
		}
		if unix.Access(dir, unix.W_OK|unix.X_OK) != nil {
			continue
		}
		out = append(out, dir)
	}
	return out
}

// onMemoryFS reports whether dir is on a memory file system (tmpfs,
// ramfs), whose writes never wait for a disk.
func onMemoryFS(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && (st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC)
}
