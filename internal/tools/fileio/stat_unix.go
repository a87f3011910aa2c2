//go:build unix

package fileio

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func keyOf(fi fs.FileInfo, path string) fileKey {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileKey{path: "\x00" + path} // not the name's own key
}

// flockFile takes an exclusive advisory lock on f, waiting while another
// process holds it, until ctx ends. A file system without such locks (some
// network mounts) is not an error: the edit then relies on its checks.
func flockFile(ctx context.Context, f *os.File) error {
	wait := time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
			return nil
		case !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR):
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// links is the file's hard-link count.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// changeTime is the file's status-change time, which every write, truncate
// or rename of the file moves and no program can set back.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return statCtime(st)
	}
	return time.Time{}
}

// mountPoint reports whether path is mounted over (a bind-mounted file):
// its device differs from its directory's.
func mountPoint(path string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	var dir syscall.Stat_t
	if err := syscall.Stat(filepath.Dir(path), &dir); err != nil {
		return false
	}
	return dir.Dev != st.Dev
}
