package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Change is a change of a file's content planned on Data, the whole
// content as read: Data[Start:End] becomes Text, the rest stays.
type Change struct {
	Start, End int
	Text       []byte
}

// Whole is the change that turns old into new, spanning only the bytes
// between their common head and tail, so an in-place write rewrites no
// more of the file than it must.
func Whole(old, new []byte) Change {
	head := 0
	for head < len(old) && head < len(new) && old[head] == new[head] {
		head++
	}
	tail := 0
	for tail < len(old)-head && tail < len(new)-head && old[len(old)-1-tail] == new[len(new)-1-tail] {
		tail++
	}
	return Change{Start: head, End: len(old) - tail, Text: new[head : len(new)-tail]}
}

// changedError is ErrChanged with how the file changed: "it was written
// to", "it was replaced or removed".
type changedError struct{ how string }

func (e changedError) Error() string { return e.how }
func (e changedError) Unwrap() error { return ErrChanged }

// Saved says how a change reached the disk.
type Saved struct {
	// InPlace reports that the file was written over, not replaced.
	InPlace bool
	// Why says why in place: "it has 2 hard links, which a new file
	// would not share", …
	Why string
}

// ReadText reads the locked file whole and checks that it can be changed:
// at most MaxTextBytes, writable, text and valid UTF-8 (see ReadText).
// name is the path as the model gave it, for messages; shell is the name
// of the tool that runs commands, which the refusals suggest instead.
func (l *Locked) ReadText(name, shell string) ([]byte, error) {
	if l.fi.Size() > MaxTextBytes {
		return nil, tooLarge(name, l.fi.Size(), shell)
	}
	if err := checkWritable(l.Real); err != nil {
		return nil, PathErr("write", name, err)
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return nil, PathErr("read", name, err)
	}
	data, err := readAll(l.f, l.fi.Size())
	if err != nil {
		return nil, PathErr("read", name, err)
	}
	if err := CheckText(name, shell, data); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadAll reads the locked file whole, whatever it holds.
func (l *Locked) ReadAll() ([]byte, error) {
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return readAll(l.f, l.fi.Size())
}

// Save writes the changed file: data[:c.Start], c.Text, data[c.End:],
// where data is the content the change was planned on.
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
// with data: if another program changed it, nothing is written and the
// error wraps ErrChanged. Other errors carry the reason only, never the
// temporary name.
func (l *Locked) Save(data []byte, c Change) (Saved, error) {
	why := ""
	switch n := links(l.fi); {
	case n > 1:
		why = fmt.Sprintf("it has %d hard links, which a new file would not share", n)
	case mountPoint(l.Real, l.fi):
		why = "it is a mount point, which a new file cannot replace"
	}
	if why == "" {
		done, reason, err := l.replace(data, c)
		if done || err != nil {
			if done {
				l.inPlace = false
			}
			return Saved{}, err
		}
		why = reason
	}
	if err := l.writeInPlace(data, c); err != nil {
		return Saved{}, err
	}
	l.inPlace = true
	return Saved{InPlace: true, Why: why}, nil
}

// Undo puts orig back after a Save that wrote now: the same way the Save
// went (in place, or by replacing the file with one carrying the original
// mode and owner).
func (l *Locked) Undo(now, orig []byte) error {
	if l.inPlace {
		return l.writeInPlace(now, Whole(now, orig))
	}
	return Replace(l.Real, l.fi, orig)
}

// replace prepares the new file beside the locked one and renames it over
// it. It reports done=false with a reason when the new file cannot be made
// identical in owner and attributes, or the file cannot be renamed over;
// the caller then writes in place. On any failure the file is untouched
// and the temporary file is gone.
func (l *Locked) replace(data []byte, c Change) (done bool, reason string, err error) {
	f, tmp, err := createTemp(l.Real, 0o600)
	if err != nil {
		return false, "", err
	}
	defer func() {
		if !done {
			_ = f.Close()      // best effort: already failing or switching to in place
			_ = os.Remove(tmp) // best effort: leave no debris
		}
	}()
	for _, p := range [][]byte{data[:c.Start], c.Text, data[c.End:]} {
		if _, err := f.Write(p); err != nil {
			return false, "", err
		}
	}
	if !keepOwner(f, l.fi) {
		return false, "its owner and group could not be given to a new file", nil
	}
	if err := f.Chmod(l.fi.Mode() & keepModeBits); err != nil {
		return false, "", err
	}
	if err := copyXattrs(l.f, f); err != nil {
		return false, fmt.Sprintf("a new file could not get its extended attributes (%s)", Reason(err)), nil
	}
	if err := f.Sync(); err != nil {
		return false, "", err
	}
	if err := f.Close(); err != nil {
		return false, "", err
	}
	if err := l.Unchanged(data); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, l.Real); err != nil {
		if errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV) {
			return false, "it is a mount point, which a new file cannot replace", nil
		}
		return false, "", err
	}
	done = true
	syncDir(filepath.Dir(l.Real))
	if fi, err := os.Lstat(l.Real); err == nil {
		l.fi = fi // the new file, for an Undo
	}
	return true, "", nil
}

// writeInPlace overwrites the file from the first changed byte, after a
// synced backup copy of the old content.
func (l *Locked) writeInPlace(data []byte, c Change) error {
	backup, err := writeBackup(l.Real, data)
	if err != nil {
		return fmt.Errorf("make a backup copy before writing in place: %w", err)
	}
	if err := l.Unchanged(data); err != nil {
		_ = os.Remove(backup) // best effort: nothing was written
		return err
	}
	w, err := os.OpenFile(l.Real, os.O_WRONLY|openFlags, 0)
	if err != nil {
		_ = os.Remove(backup) // best effort: nothing was written
		return err
	}
	tail := data[c.End:]
	rest := make([]byte, 0, len(c.Text)+len(tail))
	rest = append(append(rest, c.Text...), tail...)
	_, err = w.WriteAt(rest, int64(c.Start))
	if err == nil {
		err = w.Truncate(int64(c.Start + len(rest)))
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
		if rerr := restore(l.Real, data); rerr != nil {
			return fmt.Errorf("%w; the old content could not be put back (%s) and is kept in %s", err, Reason(rerr), backup)
		}
		_ = os.Remove(backup) // best effort
		return err
	}
	_ = os.Remove(backup) // best effort: the change is on disk
	if fi, err := l.f.Stat(); err == nil {
		l.fi = fi // as written, for an Undo
	}
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

// Unchanged checks, as late as possible before writing, that the locked
// name still leads to the locked file and that the file holds exactly
// data. The size and the modification and change times catch most writes;
// the content comparison catches a write of the same size within one tick
// of the file system's clock. The error wraps ErrChanged and says how:
// "it was written to", "it was replaced or removed".
func (l *Locked) Unchanged(data []byte) error {
	cur, err := os.Stat(l.Real)
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
