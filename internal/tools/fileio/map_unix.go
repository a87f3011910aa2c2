//go:build unix

package fileio

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only and private: the file's own
// cached pages, shared with the page cache rather than copied.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
}

// unmap removes a mapping made by mapFile.
func unmap(b []byte) { _ = unix.Munmap(b) } // best effort: only fails for an address that is not mapped

// isFault reports a write that failed because the kernel could not read
// its source, a mapped page past the end of a file cut short meanwhile.
func isFault(err error) bool { return errors.Is(err, syscall.EFAULT) }
