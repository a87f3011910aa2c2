package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// createNew writes a file that must not exist yet, atomically: the content
// goes to a temporary file (created with mode 0666 less the umask, like any
// new file) that is then hard-linked to path, which fails if path appeared
// meanwhile. Where hard links are not supported it renames after a final
// existence check.
func createNew(path string, text []byte) error {
	f, tmp, err := createTemp(path, 0o666)
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp) }() // best effort; after a link the name is just an extra link
	if _, err := f.Write(text); err != nil {
		_ = f.Close() // best effort: already failing
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close() // best effort: already failing
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	err = os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		if err == nil {
			syncDir(filepath.Dir(path))
		}
		return err
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fs.ErrExist
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// createTemp creates a hidden temporary file next to target. Its name is
// bounded so that a long target name cannot make it exceed NAME_MAX.
func createTemp(target string, perm fs.FileMode) (*os.File, string, error) {
	dir, base := filepath.Split(target)
	if len(base) > 100 {
		base = base[:100]
	}
	var err error
	for range 16 {
		name := filepath.Join(dir, "."+base+".shellport-"+strconv.FormatUint(rand.Uint64()>>16, 36)+".tmp")
		var f *os.File
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return nil, "", fmt.Errorf("create a temporary file beside it: %w", err)
}

// syncDir makes a rename durable. Some systems cannot sync a directory;
// the rename already happened, so a failure here is not reported.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()  // best effort
	_ = d.Close() // best effort
}
