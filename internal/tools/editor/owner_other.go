//go:build !unix

package editor

import (
	"io/fs"
	"os"
)

// keepOwner does nothing where files have no Unix owner to carry over.
func keepOwner(f *os.File, old fs.FileInfo) bool { return true }
