package fileio

import (
	"slices"
	"sync"
)

// locks holds one mutex per path that some call is changing, shared by
// every tool in the process, so two calls that change the same file (from
// one session or two, through one tool or another) take turns and neither
// loses the other's change. Entries live only while held or awaited.
var locks = struct {
	mu sync.Mutex
	by map[string]*pathLock
}{by: map[string]*pathLock{}}

type pathLock struct {
	mu   sync.Mutex
	refs int
}

// Lock takes the locks of paths (symlink-resolved paths, so two names of
// one file share a lock) and returns the function that releases them. It
// takes them in sorted order, once each, so two callers locking
// overlapping sets cannot deadlock.
func Lock(paths ...string) (unlock func()) {
	keys := slices.Clone(paths)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	held := make([]*pathLock, 0, len(keys))
	for _, k := range keys {
		locks.mu.Lock()
		l := locks.by[k]
		if l == nil {
			l = &pathLock{}
			locks.by[k] = l
		}
		l.refs++
		locks.mu.Unlock()
		l.mu.Lock()
		held = append(held, l)
	}
	return func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].mu.Unlock()
			locks.mu.Lock()
			if held[i].refs--; held[i].refs == 0 {
				delete(locks.by, keys[i])
			}
			locks.mu.Unlock()
		}
	}
}
