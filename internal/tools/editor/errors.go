package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Sentinels for the failures callers (and tests) tell apart. Their texts
// are short on purpose: each is wrapped with the path and a hint that read
// well to a model.
var (
	errBinary      = errors.New("binary file")
	errNotUTF8     = errors.New("not valid UTF-8")
	errNotRegular  = errors.New("not a regular file")
	errIsDir       = errors.New("is a directory")
	errExists      = errors.New("already exists")
	errNotFound    = errors.New("does not exist")
	errNoMatch     = errors.New("no match for old_str")
	errManyMatches = errors.New("old_str is not unique")
	errTooLarge    = errors.New("too large to edit")
)

// osReason turns an OS error into a few words without the path it carries,
// so a message never names a temporary file and never repeats the path.
func osReason(err error) string {
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
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// pathErr formats an operation failure on a path the model gave.
func pathErr(op, path string, err error) error {
	return fmt.Errorf("cannot %s %s: %s", op, path, osReason(err))
}
