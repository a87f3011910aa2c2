//go:build unix

package fileio

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives a replacement file the original's owner and group. Only
// root (or a member of the group, for the group alone) may do this; for
// everyone else the new file keeps the writer's ids, as with any editor
// that saves by rename.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	_ = f.Chown(int(st.Uid), int(st.Gid)) // best effort, see above
}
