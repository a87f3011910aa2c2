package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
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
	data, err := l.ReadForChange(name, shell)
	if err != nil {
		return nil, err
	}
	if err := CheckText(name, shell, data); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadForChange is ReadText without the text checks, for a caller that
// runs CheckText itself (alongside other work on a large file) before it
// changes anything. A mapping made by MapForChange is dropped first.
func (l *Locked) ReadForChange(name, shell string) ([]byte, error) {
	if l.fi.Size() > MaxTextBytes {
		return nil, tooLarge(name, l.fi.Size(), shell)
	}
	if err := checkWritable(l.Real); err != nil {
		return nil, PathErr("write", name, err)
	}
	data, err := l.readWhole()
	if err != nil {
		return nil, PathErr("read", name, err)
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
	if why != "" && l.mapped != nil {
		return Saved{}, ErrReadAgain // MapForChange maps no such file; the caller's data would change under it
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
		if l.mapped != nil {
			return Saved{}, ErrReadAgain // writing in place would change the mapping under the caller
		}
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
	if err := writeParts(f, data[:c.Start], c.Text, data[c.End:]); err != nil {
		if l.mapped != nil && isFault(err) {
			return false, "", changedError{"it was cut short"} // the mapped pages past its new end are gone
		}
		return false, "", err
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
	probe, err := takeProbe(f) // after the last change of its status; a sync changes none
	if err != nil {
		return false, "", err
	}
	if err := f.Sync(); err != nil {
		return false, "", err
	}
	if err := f.Close(); err != nil {
		return false, "", err
	}
	if err := l.unchanged(data, probe); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, l.Real); err != nil {
		if errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV) {
			return false, "it is a mount point, which a new file cannot replace", nil
		}
		return false, "", err
	}
	done = true
	l.closeLater = len(data) >= closeLaterMin
	syncDir(filepath.Dir(l.Real))
	seen := time.Now()
	if fi, err := os.Lstat(l.Real); err == nil {
		l.fi, l.seen = fi, seen // the new file, for an Undo
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
	seen := time.Now()
	if fi, err := l.f.Stat(); err == nil {
		l.fi, l.seen = fi, seen // as written, for an Undo
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
		err = writeParts(f, data)
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
// data: its identity, size, modification and change times, and its
// content. The error wraps ErrChanged and says how: "it was written to",
// "it was replaced or removed".
func (l *Locked) Unchanged(data []byte) error { return l.unchanged(data, nil) }

// Margins of the change-time check (see unchanged): how much older than the
// file system's clock a file's change time must be before it is trusted to
// move with any write. They exceed the timestamp granularity plus the
// kernel's clock tick (at most 10 ms): fineMargin for a file system whose
// stamps have digits below 10 ms (nanosecond or 100 ns stamps, so a
// granularity of 1 ms at most), coarseMargin for one with whole seconds
// (FAT: 2 s).
const (
	fineMargin   = 100 * time.Millisecond
	coarseMargin = 3 * time.Second
)

// clockProbe is a stamp of the file system's clock: the change time of a
// file just written there, and our monotonic clock right after it was read.
type clockProbe struct {
	stamp, at time.Time
}

// takeProbe reads the file system's clock off f, which the caller has just
// written (or changed the status of).
func takeProbe(f *os.File) (*clockProbe, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return &clockProbe{stamp: changeTime(fi), at: time.Now()}, nil
}

// testOnlyChecked, when set by a test, learns whether unchanged trusted
// the change time or compared the content.
var testOnlyChecked func(byContent bool)

// unchanged is Unchanged for a save that has just read probe off a new
// file on the same file system. The size and times catch most writes, yet
// alone they are not proof: a write in the same tick of the file system's
// clock as the one before leaves both times as they were. The content
// comparison that catches that costs a read of the whole file (10 ms for
// 35 MB, issue 16), so, as git does for its index ("racy git"), it is
// skipped when the change time settles it. The change time moves with
// every write and no program can set it back (utimensat sets the
// modification time only), so once the file's change time C is older than
// the file system's clock was when fi was taken, by more than a tick and
// a timestamp's granularity, a write since then has stamped a later time
// and the comparison of the times has seen it. The file system's clock
// then is estimated from its own stamp on the probe, less the time that
// elapsed in between (monotonic), so neither a network file system whose
// server clock differs from ours nor a step of our clock can make a recent
// C look old. A C that is recent or ahead of that clock, a file system
// without change times, or no probe: the content is compared. What this
// trusts is that writes stamp the change time, as POSIX requires; a
// program writing through a shared mapping into a page it had already
// dirtied before the read is the case it misses, as git does.
func (l *Locked) unchanged(data []byte, probe *clockProbe) error {
	cur, err := os.Stat(l.Real)
	if err != nil || !os.SameFile(cur, l.fi) {
		return changedError{"it was replaced or removed"}
	}
	now, err := l.f.Stat()
	if err != nil {
		return err
	}
	if now.Size() != int64(len(data)) || !now.ModTime().Equal(l.fi.ModTime()) || !changeTime(now).Equal(changeTime(l.fi)) {
		return changedError{"it was written to"}
	}
	byContent := !l.settledByChangeTime(probe)
	if testOnlyChecked != nil {
		testOnlyChecked(byContent)
	}
	if byContent && l.mapped != nil {
		return ErrReadAgain // a mapping shows the file as it is now: comparing the two proves nothing
	}
	if byContent && !sameContent(l.f, data) {
		return changedError{"it was written to"}
	}
	return nil
}

// settledByChangeTime reports whether a write since l.seen must have moved
// the file's change time (see unchanged).
func (l *Locked) settledByChangeTime(probe *clockProbe) bool {
	if probe == nil || l.seen.IsZero() {
		return false
	}
	c, p := changeTime(l.fi), probe.stamp
	if c.IsZero() || p.IsZero() {
		return false
	}
	margin := changeMargin(c, p)
	fsClockThen := p.Add(-probe.at.Sub(l.seen)) // at most the file system's clock when fi was taken
	return c.Add(margin).Before(fsClockThen)
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
