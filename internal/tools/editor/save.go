package editor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// keepModeBits are the mode bits an edit carries over to the new file.
const keepModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// errChanged marks an edit refused because the file changed on disk after
// the edit read it.
var errChanged = errors.New("changed on disk")

// changedError is errChanged with how the file changed.
type changedError struct{ how string }

func (e changedError) Error() string { return e.how }
func (e changedError) Unwrap() error { return errChanged }

// testOnlyBeforeSave, when set by a test, runs after an edit has been
// planned and its new file prepared, just before the last check that the
// file is still the one read.
var testOnlyBeforeSave func(real string)

// saved says how an edit reached the disk.
type saved struct {
	inPlace bool
	why     string // why in place: "it has 2 hard links", ...
}

// save writes the edited file: data[:c.start], c.text, data[c.end:].
//
// An ordinary file is replaced atomically: a temporary file beside it gets
// the content, the owner, the mode bits and the extended attributes (ACLs,
// security labels), is synced, and is renamed over it; a crash leaves the
// old file or the new one. A file that renaming would change is written in
// place instead: one with several hard links (a rename would split them),
// a mount point (a bind-mounted file cannot be renamed over), or one whose
// owner or extended attributes a new file cannot be given. Then a synced
// backup copy is made first, the new bytes are written over the old from
// the first changed one, the file is cut to its new length and synced, and
// the backup is removed; a crash in between leaves the backup beside the
// file (or in the temporary directory).
//
// Right before the rename or the first write, the file on disk is compared
// with what the edit read: if another program changed it, nothing is
// written and the error wraps errChanged.
func save(lf *lockedFile, real string, data []byte, c change) (saved, error) {
	why := ""
	switch n := links(lf.fi); {
	case n > 1:
		why = fmt.Sprintf("it has %d hard links, which a new file would not share", n)
	case mountPoint(real, lf.fi):
		why = "it is a mount point, which a new file cannot replace"
	}
	if why == "" {
		done, reason, err := replaceFile(lf, real, data, c)
		if done || err != nil {
			return saved{}, err
		}
		why = reason
	}
	return saved{inPlace: true, why: why}, writeInPlace(lf, real, data, c)
}

// replaceFile prepares the new file beside real and renames it over real.
// It reports done=false with a reason when the new file cannot be made
// identical in owner and attributes, or real cannot be renamed over; the
// caller then writes in place. On any failure real is untouched and the
// temporary file is gone. Errors carry the reason only, never the
// temporary name.
func replaceFile(lf *lockedFile, real string, data []byte, c change) (done bool, reason string, err error) {
	f, tmp, err := createTemp(real, 0o600)
	if err != nil {
		return false, "", err
	}
	defer func() {
		if !done {
			_ = f.Close()      // best effort: already failing or switching to in place
			_ = os.Remove(tmp) // best effort: leave no debris
		}
	}()
	for _, p := range [][]byte{data[:c.start], c.text, data[c.end:]} {
		if _, err := f.Write(p); err != nil {
			return false, "", err
		}
	}
	if !keepOwner(f, lf.fi) {
		return false, "its owner and group could not be given to a new file", nil
	}
	if err := f.Chmod(lf.fi.Mode() & keepModeBits); err != nil {
		return false, "", err
	}
	if err := copyXattrs(lf.f, f); err != nil {
		return false, fmt.Sprintf("a new file could not get its extended attributes (%s)", osReason(err)), nil
	}
	if err := f.Sync(); err != nil {
		return false, "", err
	}
	if err := f.Close(); err != nil {
		return false, "", err
	}
	if err := lf.unchanged(real, data); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, real); err != nil {
		if errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV) {
			return false, "it is a mount point, which a new file cannot replace", nil
		}
		return false, "", err
	}
	done = true
	syncDir(filepath.Dir(real))
	return true, "", nil
}

// writeInPlace overwrites real from the first changed byte, after a synced
// backup copy of the old content.
func writeInPlace(lf *lockedFile, real string, data []byte, c change) error {
	backup, err := writeBackup(real, data)
	if err != nil {
		return fmt.Errorf("make a backup copy before writing in place: %w", err)
	}
	if err := lf.unchanged(real, data); err != nil {
		_ = os.Remove(backup) // best effort: nothing was written
		return err
	}
	w, err := os.OpenFile(real, os.O_WRONLY|openFlags, 0)
	if err != nil {
		_ = os.Remove(backup) // best effort: nothing was written
		return err
	}
	tail := data[c.end:]
	rest := make([]byte, 0, len(c.text)+len(tail))
	rest = append(append(rest, c.text...), tail...)
	_, err = w.WriteAt(rest, int64(c.start))
	if err == nil {
		err = w.Truncate(int64(c.start + len(rest)))
	}
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The old content may be half overwritten: put it back from memory,
		// and keep the backup if even that fails.
		if rerr := restore(real, data); rerr != nil {
			return fmt.Errorf("%w; the old content could not be put back (%s) and is kept in %s", err, osReason(rerr), backup)
		}
		_ = os.Remove(backup) // best effort
		return err
	}
	_ = os.Remove(backup) // best effort: the edit is on disk
	return nil
}

// writeBackup writes data to a synced file beside real, or in the
// temporary directory when real's directory takes no new files.
func writeBackup(real string, data []byte) (string, error) {
	write := func(target string) (string, error) {
		f, name, err := createTemp(target, 0o600)
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name) // best effort
			return "", err
		}
		return name, nil
	}
	name, err := write(real)
	if err != nil {
		name, err = write(filepath.Join(os.TempDir(), filepath.Base(real)))
	}
	return name, err
}

func restore(real string, data []byte) error {
	w, err := os.OpenFile(real, os.O_WRONLY|openFlags, 0)
	if err != nil {
		return err
	}
	_, err = w.WriteAt(data, 0)
	if err == nil {
		err = w.Truncate(int64(len(data)))
	}
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// unchanged checks, as late as possible before writing, that real is still
// the file the edit read and holds exactly data. The size and the
// modification and change times catch most writes; the content comparison
// catches a write of the same size within one tick of the file system's
// clock.
func (l *lockedFile) unchanged(real string, data []byte) error {
	if testOnlyBeforeSave != nil {
		testOnlyBeforeSave(real)
	}
	cur, err := os.Stat(real)
	if err != nil || !os.SameFile(cur, l.fi) {
		return changedError{"it was replaced or removed"}
	}
	now, err := l.f.Stat()
	if err != nil {
		return err
	}
	if now.Size() != int64(len(data)) || !now.ModTime().Equal(l.fi.ModTime()) || !changeTime(now).Equal(changeTime(l.fi)) || !sameContent(l.f, data) {
		return changedError{"it was written to"}
	}
	return nil
}

// sameContent reads f from its start and compares it with data.
func sameContent(f *os.File, data []byte) bool {
	buf := make([]byte, min(len(data)+1, 64<<10))
	off := 0
	for {
		n, err := f.ReadAt(buf, int64(off))
		if n > 0 {
			if off+n > len(data) || !bytes.Equal(buf[:n], data[off:off+n]) {
				return false
			}
			off += n
		}
		if err == io.EOF {
			return off == len(data)
		}
		if err != nil {
			return false
		}
	}
}
