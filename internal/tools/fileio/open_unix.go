//go:build unix

package fileio

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openFlags keeps an open from blocking on a FIFO that has no writer and
// from making a terminal the caller's controlling terminal. The type check
// after the open then refuses such files.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// OpenRegularRead is OpenRegular for a caller that only reads the file
// front to back and has just stat'ed real (fi): it refuses what fi says is
// not a regular file, opens real and checks the open descriptor again, as
// OpenRegular does, without a second stat of the path, and reads with plain
// read calls rather than through an *os.File, which on Linux first tries
// (and fails) to register a regular file with the runtime's poller. A view
// of a small file is the cheapest call there is, and those were two of its
// eight system calls (issue 16).
func OpenRegularRead(name, real string, fi fs.FileInfo) (io.ReadCloser, error) {
	if err := CheckRegular(name, fi); err != nil {
		return nil, err
	}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = syscall.Open(real, syscall.O_RDONLY|syscall.O_CLOEXEC|openFlags, 0)
		return err
	})
	if err != nil {
		return nil, PathErr("read", name, &fs.PathError{Op: "open", Path: real, Err: err})
	}
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		_ = syscall.Close(fd) // best effort: nothing was read
		return nil, PathErr("read", name, &fs.PathError{Op: "stat", Path: real, Err: err})
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		// The path was swapped after the stat: refuse it in OpenRegular's
		// words, from the open descriptor.
		f := os.NewFile(uintptr(fd), real)
		defer f.Close()
		ofi, err := f.Stat()
		if err == nil {
			err = CheckRegular(name, ofi)
		}
		if err == nil {
			err = PathErr("read", name, fs.ErrInvalid) // cannot happen: the mode said not regular
		}
		return nil, err
	}
	return &rawFile{fd: fd}, nil
}

// rawFile reads a regular file by its descriptor.
type rawFile struct{ fd int }

func (f *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Close() error {
	if f.fd < 0 {
		return nil
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	return err
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
