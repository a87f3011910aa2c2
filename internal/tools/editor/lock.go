package editor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// fileKey names a file, not a path: two names of one file (hard links,
// symlinks, bind mounts, "a/../b") have one key. A key with only a path
// names a resolved path; where the platform has no device and inode
// numbers, that is all there is.
type fileKey struct {
	dev, ino uint64
	path     string
}

// editLocks serialises edits of one file across everything in the process:
// every tool instance, session and runtime. An entry lives while someone
// holds or waits for it.
var editLocks = struct {
	mu sync.Mutex
	m  map[fileKey]*keyLock
}{m: map[fileKey]*keyLock{}}

type keyLock struct {
	token chan struct{} // holds one token while the file is free
	refs  int
}

// lockKey takes the lock of one file, or gives up when ctx ends.
func lockKey(ctx context.Context, k fileKey) (unlock func(), err error) {
	editLocks.mu.Lock()
	l := editLocks.m[k]
	if l == nil {
		l = &keyLock{token: make(chan struct{}, 1)}
		l.token <- struct{}{}
		editLocks.m[k] = l
	}
	l.refs++
	editLocks.mu.Unlock()
	release := func() {
		editLocks.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(editLocks.m, k)
		}
		editLocks.mu.Unlock()
	}
	select {
	case <-l.token:
		return func() { l.token <- struct{}{}; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// lockedFile is a file open for an edit and held against other edits: by
// the process-wide lock on its identity and by an advisory lock on the
// file itself, which other shellport processes take too.
type lockedFile struct {
	f      *os.File
	fi     fs.FileInfo // as it was when read
	unlock func()
}

func (l *lockedFile) close() {
	_ = l.f.Close() // best effort: only read from; closing also drops the advisory lock
	l.unlock()
}

// maxLockAttempts bounds how often an edit starts over because the name
// was given to another file while it waited for the lock. Only a program
// that keeps renaming files over the name makes it start over more than
// once.
const maxLockAttempts = 64

// openLocked opens the regular file real (already symlink-resolved) and
// locks it: first the name, so that edits through one name queue in order
// even though each replaces the file; then the file, so that edits through
// its other names (hard links, bind mounts) queue too; then the advisory
// lock for other processes. When the name was given to another file while
// the edit waited, it starts over on that file.
func openLocked(ctx context.Context, real string) (*lockedFile, error) {
	unlockName, err := lockKey(ctx, fileKey{path: real})
	if err != nil {
		return nil, err
	}
	lf, err := openLockedFile(ctx, real)
	if err != nil {
		unlockName()
		return nil, err
	}
	unlockFile := lf.unlock
	lf.unlock = func() { unlockFile(); unlockName() }
	return lf, nil
}

func openLockedFile(ctx context.Context, real string) (*lockedFile, error) {
	for range maxLockAttempts {
		f, fi, err := openRegular(real)
		if err != nil {
			return nil, err
		}
		unlock, err := lockKey(ctx, keyOf(fi, real))
		if err != nil {
			_ = f.Close() // best effort: nothing was done
			return nil, err
		}
		if err := flockFile(ctx, f); err != nil {
			_ = f.Close() // best effort
			unlock()
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, err
			}
			return nil, fmt.Errorf("cannot lock %s for the edit: %s", real, osReason(err))
		}
		if cur, err := os.Stat(real); err == nil && os.SameFile(cur, fi) {
			if fi, err = f.Stat(); err == nil { // as it is now that no edit can change it
				return &lockedFile{f: f, fi: fi, unlock: unlock}, nil
			}
		}
		_ = f.Close() // best effort: replaced meanwhile; try the new file
		unlock()
	}
	return nil, fmt.Errorf("%s was replaced by other programs %d times while this edit waited for it; try again", real, maxLockAttempts)
}
