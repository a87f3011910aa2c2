//go:build unix

package editor

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives the replacement file the original's owner and group and
// reports whether it now has them. Only root (or a member of the group,
// for the group alone) may give them away; when the new file would belong
// to someone else, the edit is written in place instead.
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
