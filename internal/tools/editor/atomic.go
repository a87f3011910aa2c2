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

// keepModeBits are the mode bits an edit carries over to the new file.
const keepModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// replaceFile atomically replaces the regular file target (already
// symlink-resolved) with the concatenation of parts. It writes a temporary
// file in the same directory, gives it target's owner (best effort) and
// mode bits, syncs it and renames it over target. On any error target is
// untouched and the temporary file is removed. The error carries the reason
// only, never the temporary name.
func replaceFile(target string, old fs.FileInfo, parts ...[]byte) error {
	f, tmp, err := createTemp(target, 0o600)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = f.Close()      // best effort: already failing
			_ = os.Remove(tmp) // best effort: leave no debris
		}
	}()
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			return err
		}
	}
	keepOwner(f, old) // before chmod: chown clears the setuid and setgid bits
	if err := f.Chmod(old.Mode() & keepModeBits); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		_ = os.Remove(tmp) // best effort
		done = true
		return err
	}
	done = true
	syncDir(filepath.Dir(target))
	return nil
}

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
