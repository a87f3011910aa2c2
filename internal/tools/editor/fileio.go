package editor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

const (
	// maxEditBytes caps the size of a file this tool edits. An edit holds
	// the file in memory once; far beyond source-file sizes, sed is the
	// better tool and a Python host process should not grow by gigabytes.
	maxEditBytes = 256 << 20
	// sniffBytes is how much of a file view checks for NUL bytes before
	// printing anything.
	sniffBytes = 8 << 10
)

// openRegular opens path for reading and refuses anything but a regular
// file. It checks the type before opening (opening a FIFO or a terminal can
// block or change the caller's terminal) and again on the open descriptor,
// in case the path was swapped in between.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, statErr(path, err)
	}
	if err := checkRegular(path, fi); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, pathErr("read", path, err)
	}
	fi, err = f.Stat()
	if err == nil {
		err = checkRegular(path, fi)
	}
	if err != nil {
		_ = f.Close() // best effort: nothing was read
		return nil, nil, err
	}
	return f, fi, nil
}

func statErr(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %w%s", path, errNotFound, missingHint(path))
	}
	return pathErr("read", path, err)
}

// missingHint names the nearest existing ancestor of a missing path, which
// tells a model whether it got a file name or a directory wrong.
func missingHint(path string) string {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			if dir == filepath.Dir(path) {
				return fmt.Sprintf(" (its directory %s exists; view it to see the files there)", dir)
			}
			return fmt.Sprintf(" (the nearest existing directory is %s)", dir)
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

func checkRegular(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s %w", path, errIsDir)
	default:
		return fmt.Errorf("%s is %s, %w; this tool only reads and writes regular files", path, fileKind(m), errNotRegular)
	}
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// readAll reads an open file whose size is roughly known into one buffer
// sized once, so a large file costs a single allocation.
func readAll(f *os.File, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew; let append pick a size
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// loadForEdit reads a file that is about to be changed, from its locked
// descriptor, and checks that it can be: not too large, writable, text (no
// NUL) and valid UTF-8. path is the name the model gave, for messages;
// real is its symlink-resolved form, the file the write must replace.
func loadForEdit(path, real string, lf *lockedFile, shell string) ([]byte, error) {
	if lf.fi.Size() > maxEditBytes {
		return nil, fmt.Errorf("%s is %d bytes, %w (the limit is %d MiB); use %s, for example sed, to change it", path, lf.fi.Size(), errTooLarge, maxEditBytes>>20, shell)
	}
	if err := checkWritable(real); err != nil {
		return nil, pathErr("write", path, err)
	}
	data, err := readAll(lf.f, lf.fi.Size())
	if err != nil {
		return nil, pathErr("read", path, err)
	}
	switch nul, bad := checkText(data); {
	case nul:
		return nil, fmt.Errorf("%s looks like a %w (it contains NUL bytes); this tool edits text files only, so it was left unchanged", path, errBinary)
	case bad >= 0:
		return nil, fmt.Errorf("%s is %w (first invalid byte on line %d); it was left unchanged, since this tool edits UTF-8 text only. Use %s to edit files in other encodings", path, errNotUTF8, lineOf(data, bad), shell)
	}
	return data, nil
}

// checkWritable opens the file for writing without truncating it. An edit
// that replaces the file by rename only needs a writable directory; this
// keeps a read-only file read-only, as an in-place write would.
func checkWritable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|openFlags, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// checkText reports whether b holds a NUL byte and the offset of the first
// byte that is not valid UTF-8 (-1 if none). The standard library's
// vectorised scans beat a hand-rolled single pass here.
func checkText(b []byte) (nul bool, bad int) {
	nul = bytes.IndexByte(b, 0) >= 0
	if utf8.Valid(b) {
		return nul, -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return nul, i
		}
		i += n
	}
	return nul, -1
}

// lineOf returns the 1-based line holding byte offset off.
func lineOf(data []byte, off int) int {
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], nl) + 1
}

var nl = []byte{'\n'}
