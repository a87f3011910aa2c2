package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// keepModeBits are the mode bits a replacement carries over.
const keepModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// Replace atomically replaces the regular file real (already
// symlink-resolved) with the concatenation of parts. It writes a temporary
// file in the same directory, gives it like's owner (best effort) and mode
// bits, syncs it and renames it over real. On any error real is untouched
// and the temporary file is removed. The error carries the reason only,
// never the temporary name.
func Replace(real string, like fs.FileInfo, parts ...[]byte) error {
	f, tmp, err := createTemp(real, 0o600)
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
	if err := writeParts(f, parts...); err != nil {
		return err
	}
	_ = keepOwner(f, like) // best effort, before chmod: chown clears the setuid and setgid bits
	if err := f.Chmod(like.Mode() & keepModeBits); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	done = true
	if err := os.Rename(tmp, real); err != nil {
		_ = os.Remove(tmp) // best effort
		return err
	}
	syncDir(filepath.Dir(real))
	return nil
}

// CreateNew writes a file that must not exist yet, atomically: the content
// goes to a temporary file that is then hard-linked to path, which fails
// with ErrExists if path appeared meanwhile. Where hard links are not
// supported it renames after a final existence check. With like nil the
// file gets mode 0666 less the umask, as any new file; otherwise like's
// mode bits and (best effort) owner, for a file that replaces another.
func CreateNew(path string, data []byte, like fs.FileInfo) error {
	f, tmp, err := createTemp(path, 0o666)
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp) }() // best effort; after a link the name is just an extra link
	err = fillNew(f, data, like)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = os.Link(tmp, path)
	if err == nil {
		syncDir(filepath.Dir(path))
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return ErrExists
	}
	if _, serr := os.Lstat(path); serr == nil {
		return ErrExists
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

func fillNew(f *os.File, data []byte, like fs.FileInfo) error {
	if err := writeParts(f, data); err != nil {
		return err
	}
	if like != nil {
		_ = keepOwner(f, like) // best effort: a new file may belong to its writer
		if err := f.Chmod(like.Mode() & keepModeBits); err != nil {
			return err
		}
	}
	return f.Sync()
}

// Unchanged reports ErrChanged when the file at real is no longer the one
// described by old (another inode, size or modification time): something
// else wrote it after it was looked at, and changing it now would lose
// that change. For a file read and locked to be changed, Locked.Unchanged
// checks more (the change time and the content).
func Unchanged(name, real string, old fs.FileInfo) error {
	now, err := os.Lstat(real)
	if err != nil || !os.SameFile(now, old) || now.Size() != old.Size() || !now.ModTime().Equal(old.ModTime()) {
		return ChangedError(name)
	}
	return nil
}

// ChangedError is the message of a change refused because name changed on
// disk since it was read; it wraps ErrChanged.
func ChangedError(name string) error {
	return fmt.Errorf("%s %w since it was read (another program wrote it); read it again before changing it", name, ErrChanged)
}

// MoveAside renames path (a file or a symbolic link, never followed) to a
// new hidden name beside it and returns that name: to the user the file is
// gone, yet Restore brings it back byte for byte, with its inode, owner and
// links. Discard removes the set-aside file for good.
func MoveAside(path string) (string, error) {
	f, aside, err := createTemp(path, 0o600)
	if err != nil {
		return "", err
	}
	_ = f.Close() // the placeholder only reserves the name
	if err := os.Rename(path, aside); err != nil {
		_ = os.Remove(aside) // best effort
		return "", err
	}
	return aside, nil
}

// Restore undoes MoveAside. It refuses to overwrite a path that was
// recreated meanwhile.
func Restore(aside, path string) error {
	if _, err := os.Lstat(path); err == nil {
		return ErrExists
	}
	if err := os.Rename(aside, path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// Discard removes a file set aside by MoveAside.
func Discard(aside string) error {
	if err := os.Remove(aside); err != nil {
		return err
	}
	syncDir(filepath.Dir(aside))
	return nil
}

// MkdirAll creates dir and its missing parents and returns the directories
// it made, outermost first (none when dir existed), so a caller can remove
// them again. A path component that is not a directory is an error.
func MkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("cannot create a file under %s: it is not a directory", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, PathErr("create directory", d, err)
		}
		missing = append(missing, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, PathErr("create directory", dir, err)
	}
	for i, j := 0, len(missing)-1; i < j; i, j = i+1, j-1 {
		missing[i], missing[j] = missing[j], missing[i]
	}
	return missing, nil
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
