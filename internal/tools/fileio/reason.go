package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Reason turns an OS error into a few words without the path it carries,
// so a message never names a temporary file and never repeats the path.
func Reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, syscall.ENOSPC):
		return "no space left on device"
	case errors.Is(err, syscall.EROFS):
		return "read-only file system"
	case errors.Is(err, syscall.ENAMETOOLONG):
		return "file name too long"
	case errors.Is(err, syscall.ENOTDIR):
		return "a parent of the path is not a directory"
	case errors.Is(err, syscall.ELOOP):
		return "too many levels of symbolic links"
	case errors.Is(err, syscall.EXDEV):
		return "it is on another file system"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// PathErr formats a failed operation on a path the model gave.
func PathErr(op, name string, err error) error {
	return fmt.Errorf("cannot %s %s: %s", op, name, Reason(err))
}
