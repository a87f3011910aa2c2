package fileio

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// fileKey names what a lock guards: a path (a name, after symbolic links
// are resolved), or a file by device and inode, so two names of one file
// (hard links, symlinks, bind mounts, "a/../b") share the file's lock.
// Where the platform has no device and inode numbers, a file's key is its
// path with a NUL in front, distinct from the name's own key.
type fileKey struct {
	dev, ino uint64
	path     string
}

func (k fileKey) less(o fileKey) bool {
	if k.dev != o.dev {
		return k.dev < o.dev
	}
	if k.ino != o.ino {
		return k.ino < o.ino
	}
	return strings.Compare(k.path, o.path) < 0
}

// locks serialises changes of one file across everything in the process:
// every tool (the editor and apply_patch alike), session and runtime. An
// entry lives while someone holds or waits for it.
var locks = struct {
	mu sync.Mutex
	by map[fileKey]*keyLock
}{by: map[fileKey]*keyLock{}}

type keyLock struct {
	token chan struct{} // holds one token while the key is free
	refs  int
}

// lockKey takes the lock of one key, or gives up when ctx ends.
func lockKey(ctx context.Context, k fileKey) (unlock func(), err error) {
	locks.mu.Lock()
	l := locks.by[k]
	if l == nil {
		l = &keyLock{token: make(chan struct{}, 1)}
		l.token <- struct{}{}
		locks.by[k] = l
	}
	l.refs++
	locks.mu.Unlock()
	release := func() {
		locks.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(locks.by, k)
		}
		locks.mu.Unlock()
	}
	select {
	case <-l.token:
		return func() { l.token <- struct{}{}; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// lockKeys takes the locks of keys in sorted order, once each, so two
// callers locking overlapping sets cannot deadlock; it gives up, holding
// nothing, when ctx ends.
func lockKeys(ctx context.Context, keys []fileKey) (unlock func(), err error) {
	keys = slices.Clone(keys)
	slices.SortFunc(keys, func(a, b fileKey) int {
		switch {
		case a.less(b):
			return -1
		case b.less(a):
			return 1
		}
		return 0
	})
	keys = slices.Compact(keys)
	held := make([]func(), 0, len(keys))
	unlockAll := func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i]()
		}
	}
	for _, k := range keys {
		u, err := lockKey(ctx, k)
		if err != nil {
			unlockAll()
			return nil, err
		}
		held = append(held, u)
	}
	return unlockAll, nil
}

// Lock takes the locks of the names paths (symlink-resolved paths, so two
// spellings of one name share a lock) and returns the function that
// releases them, or ctx's error, holding nothing, when ctx ends first. It
// takes them in sorted order, once each, so two callers locking
// overlapping sets cannot deadlock. A caller that changes existing files
// then locks the files themselves with LockFiles, which queues it behind
// changes made through the files' other names too.
func Lock(ctx context.Context, paths ...string) (unlock func(), err error) {
	keys := make([]fileKey, len(paths))
	for i, p := range paths {
		keys[i] = fileKey{path: p}
	}
	return lockKeys(ctx, keys)
}
