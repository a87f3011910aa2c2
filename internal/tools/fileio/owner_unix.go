//go:build unix

package fileio

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives a replacement file the original's owner and group and
// reports whether it now has them. Only root (or a member of the group,
// for the group alone) may give them away; a caller that must keep the
// owner writes in place instead when this fails.
func keepOwner(f *os.File, old fs.FileInfo) bool {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	_ = f.Chown(int(st.Uid), int(st.Gid)) // best effort: checked below
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	now, ok := fi.Sys().(*syscall.Stat_t)
	return ok && now.Uid == st.Uid && now.Gid == st.Gid
}
