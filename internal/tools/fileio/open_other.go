//go:build !unix

package fileio

import (
	"io"
	"io/fs"
)

// openFlags adds nothing where O_NONBLOCK and O_NOCTTY do not exist.
const openFlags = 0

// OpenRegularRead is OpenRegular for a caller that only reads the file and
// has just stat'ed it (see open_unix.go); here it is OpenRegular.
func OpenRegularRead(name, real string, _ fs.FileInfo) (io.ReadCloser, error) {
	f, _, err := OpenRegular(name, real)
	if err != nil {
		return nil, err
	}
	return f, nil
}
