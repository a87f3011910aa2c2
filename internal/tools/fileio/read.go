package fileio

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

// ReadText reads a file that is about to be changed and checks that it can
// be: a regular file, writable, at most MaxTextBytes, text (no NUL byte) and
// valid UTF-8. name is the path as the model gave it, for messages; real is
// its symlink-resolved form, the file that is read. The FileInfo is that of
// the open file, for Replace and Unchanged. shell is the name of the tool
// that runs commands, which the refusals suggest instead.
func ReadText(name, real, shell string) (fs.FileInfo, []byte, error) {
	f, fi, err := OpenRegular(name, real)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > MaxTextBytes {
		return nil, nil, tooLarge(name, fi.Size(), shell)
	}
	if err := checkWritable(real); err != nil {
		return nil, nil, PathErr("write", name, err)
	}
	data, err := readAll(f, fi.Size())
	if err != nil {
		return nil, nil, PathErr("read", name, err)
	}
	if err := CheckText(name, shell, data); err != nil {
		return nil, nil, err
	}
	return fi, data, nil
}

// CheckText refuses data that holds a NUL byte (a binary file) or is not
// valid UTF-8, naming the first bad line and suggesting shell, the tool
// that runs commands, for other encodings.
func CheckText(name, shell string, data []byte) error {
	if bytes.IndexByte(data, 0) >= 0 {
		return fmt.Errorf("%s looks like a %w (it contains NUL bytes); this tool edits text files only, so it was left unchanged", name, ErrBinary)
	}
	if utf8.Valid(data) {
		return nil
	}
	bad := 0
	for bad < len(data) {
		r, n := utf8.DecodeRune(data[bad:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		bad += n
	}
	return fmt.Errorf("%s is %w (first invalid byte on line %d); it was left unchanged, since this tool edits UTF-8 text only. Use %s to edit files in other encodings",
		name, ErrNotUTF8, bytes.Count(data[:bad], []byte{'\n'})+1, shell)
}

// tooLarge refuses a file over MaxTextBytes, suggesting shell instead.
func tooLarge(name string, size int64, shell string) error {
	return fmt.Errorf("%s is %d bytes, %w (the limit is %d MiB); use %s, for example sed, to change it", name, size, ErrTooLarge, MaxTextBytes>>20, shell)
}

// OpenRegular opens real for reading and refuses anything but a regular
// file. It checks the type before opening (opening a FIFO or a terminal can
// block or change the caller's terminal) and again on the open descriptor,
// in case the path was swapped in between. name is used in messages.
func OpenRegular(name, real string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(real)
	if err != nil {
		return nil, nil, StatErr(name, err)
	}
	if err := CheckRegular(name, fi); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, PathErr("read", name, err)
	}
	fi, err = f.Stat()
	if err == nil {
		err = CheckRegular(name, fi)
	}
	if err != nil {
		_ = f.Close() // best effort: nothing was read
		return nil, nil, err
	}
	return f, fi, nil
}

// CheckRegular refuses directories and special files.
func CheckRegular(name string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s %w", name, ErrIsDir)
	default:
		return fmt.Errorf("%s is %s, %w; this tool only reads and writes regular files", name, FileKind(m), ErrNotRegular)
	}
}

// FileKind names the type of a file that is not regular, with an article.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a file"
	}
	return "a special file"
}

// StatErr turns a failed stat of name into a message: for a missing path
// it names the nearest existing directory, which tells a model whether it
// got a file name or a directory wrong.
func StatErr(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return NotFound(name, name)
	}
	return PathErr("read", name, err)
}

// NotFound says that name, whose absolute form is abs, does not exist, and
// names the nearest existing directory of abs.
func NotFound(name, abs string) error {
	return fmt.Errorf("%s %w%s", name, ErrNotFound, missingHint(abs))
}

func missingHint(path string) string {
	if !filepath.IsAbs(path) {
		return ""
	}
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

// readAll reads an open file whose size is roughly known into one buffer
// sized once, so a large file costs a single allocation (backed by huge
// pages where the kernel offers them, see adviseHugePages).
func readAll(f *os.File, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+512)
	adviseHugePages(buf)
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

// checkWritable opens the file for writing without truncating it. A change
// replaces the file by rename, which only needs a writable directory; this
// keeps a read-only file read-only, as an in-place write would.
func checkWritable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|openFlags, 0)
	if err != nil {
		return err
	}
	return f.Close()
}
