package fileio

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the given range of f to
// its disk now, without waiting for it (see writeParts).
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE) // A hint: the fsync that follows waits for every byte and reports any error.
}
