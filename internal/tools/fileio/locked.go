package fileio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Locked is a regular file open for a change and held against other
// changes: by the process-wide lock on its identity (device and inode), so
// changes through any of its names queue, and by an advisory lock on the
// file itself (flock), which other shellport processes take too. Its Info
// is the file as it was once locked; Save checks, just before writing,
// that it still is.
type Locked struct {
	// Real is the file's symlink-resolved path, the name it is changed
	// through.
	Real string
	f    *os.File
	fi   fs.FileInfo
	// seen is when fi was taken (the monotonic reading matters): from then
	// on every write of the file is one Save must notice (see unchanged).
	seen time.Time
	// inPlace records that the last Save wrote over the file rather than
	// replacing it, so Undo writes the same way.
	inPlace bool
	// closeLater records that a Save renamed a new file over a large f:
	// release closes f in the background (see closeLaterMin).
	closeLater bool
	// mapped is f's content mapped by MapForChange, nil when it was read
	// into memory; release unmaps it.
	mapped []byte
}

// closeLaterMin is the size from which the descriptor of a file an edit
// replaced is closed (and its mapping removed) in the background. Closing
// the last reference to a file that a rename has unlinked makes the kernel
// free it there and then, its cached pages and its blocks: 27 ms for 35 MB
// on ext4, a quarter of such an edit (issue 16). No one can reach that
// file any more (its name leads to the new one), so the edit need not
// wait. The advisory lock on it goes with the descriptor; a process that
// waited for that lock finds the name leads to another file and starts
// over (lockOnce).
const closeLaterMin = 8 << 20

// close unmaps and closes the file.
func (l *Locked) close() {
	l.dropMapping()
	_ = l.f.Close() // best effort: only read from; closing also drops the advisory lock
}

// Info is the file as it was when it was locked (or last saved).
func (l *Locked) Info() fs.FileInfo { return l.fi }

// maxLockAttempts bounds how often LockFiles starts over because a name was
// given to another file while it waited for the locks. Only a program that
// keeps renaming files over the names makes it start over more than once.
const maxLockAttempts = 64

// LockFiles opens the regular files reals (symlink-resolved paths whose
// names the caller has locked with Lock) and locks them: the identity
// locks in sorted order, then the advisory locks in the same order, so two
// callers locking overlapping sets cannot deadlock. When a name was given
// to another file while it waited, it starts over. The returned function
// closes the files and releases every lock. Names that lead to one file
// share one Locked. names are the paths as the model gave them, for
// messages (nil: reals).
func LockFiles(ctx context.Context, reals, names []string) ([]*Locked, func(), error) {
	if names == nil {
		names = reals
	}
	for range maxLockAttempts {
		files, release, retry, err := lockOnce(ctx, reals, names)
		if err != nil || !retry {
			return files, release, err
		}
	}
	return nil, nil, fmt.Errorf("%s was replaced by other programs %d times while this change waited for it; try again", names[0], maxLockAttempts)
}

// lockOnce is one attempt of LockFiles; retry reports that a name now
// leads to another file than the one opened.
func lockOnce(ctx context.Context, reals, names []string) (_ []*Locked, _ func(), retry bool, err error) {
	files := make([]*Locked, len(reals))
	byKey := map[fileKey]*Locked{}
	var opened []*Locked // distinct files, in the order they are flocked
	var unlockKeys func()
	release := func() {
		for _, l := range opened {
			if l.closeLater {
				go l.close()
				continue
			}
			l.close()
		}
		if unlockKeys != nil {
			unlockKeys()
		}
	}
	defer func() {
		if err != nil || retry {
			release()
		}
	}()
	var keys []fileKey
	for i, real := range reals {
		f, fi, err := OpenRegular(names[i], real)
		if err != nil {
			return nil, nil, false, err
		}
		k := keyOf(fi, real)
		if l := byKey[k]; l != nil {
			_ = f.Close() // best effort: another name of a file already open
			files[i] = l
			continue
		}
		l := &Locked{Real: real, f: f, fi: fi}
		byKey[k] = l
		files[i] = l
		opened = append(opened, l)
		keys = append(keys, k)
	}
	if unlockKeys, err = lockKeys(ctx, keys); err != nil {
		return nil, nil, false, err
	}
	sortByKey(opened, byKey)
	for _, l := range opened {
		if err := flockFile(ctx, l.f); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, nil, false, err
			}
			return nil, nil, false, fmt.Errorf("cannot lock %s for the change: %s", l.Real, Reason(err))
		}
	}
	for i, l := range files {
		cur, err := os.Stat(reals[i])
		if err != nil || !os.SameFile(cur, l.fi) {
			return nil, nil, true, nil // replaced meanwhile; try the new file
		}
	}
	for _, l := range opened {
		seen := time.Now()
		fi, err := l.f.Stat() // as it is now that no change of ours can touch it
		if err != nil {
			return nil, nil, false, PathErr("read", l.Real, err)
		}
		l.fi, l.seen = fi, seen
	}
	return files, release, false, nil
}

// sortByKey orders files as their keys sort, the order lockKeys took them.
func sortByKey(files []*Locked, byKey map[fileKey]*Locked) {
	key := make(map[*Locked]fileKey, len(byKey))
	for k, l := range byKey {
		key[l] = k
	}
	for i := 1; i < len(files); i++ {
		for j := i; j > 0 && key[files[j]].less(key[files[j-1]]); j-- {
			files[j], files[j-1] = files[j-1], files[j]
		}
	}
}

// OpenLocked locks the name real (symlink-resolved) and then the file it
// names: first the name, so that changes through one name queue in order
// even though each replaces the file; then the file, so that changes
// through its other names (hard links, bind mounts) queue too; then the
// advisory lock for other processes. name is the path as the model gave
// it, for messages. Close releases everything.
func OpenLocked(ctx context.Context, name, real string) (*Locked, func(), error) {
	unlockName, err := Lock(ctx, real)
	if err != nil {
		return nil, nil, err
	}
	files, release, err := LockFiles(ctx, []string{real}, []string{name})
	if err != nil {
		unlockName()
		return nil, nil, err
	}
	return files[0], func() { release(); unlockName() }, nil
}
