package patch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Test seams: testOnlyAfterPlan runs after every file was read and before
// the commit looks at the disk again; testOnlyBeforeWrite runs before each
// write of a commit, and an error from it fails that write.
var (
	testOnlyAfterPlan   func()
	testOnlyBeforeWrite func(key string) error
)

// step is one write of a commit and how to undo it.
type step struct {
	st    *state
	undo  func() error
	aside string // a removed file, discarded once every write succeeded
}

// commit writes the final state of every file the patch touched. Before
// the first write it checks that none changed on disk since it was read;
// if a write fails, it undoes the ones before it, newest first.
func (a *applier) commit() error {
	if testOnlyAfterPlan != nil {
		testOnlyAfterPlan()
	}
	for _, st := range a.order {
		if !st.origExists || !st.dirty {
			continue
		}
		if lf := a.locked[st.key]; lf != nil && st.loaded {
			if err := lf.Unchanged(st.origData); err != nil {
				return fileio.ChangedError(st.name)
			}
		} else if err := fileio.Unchanged(st.name, st.key, st.origInfo); err != nil {
			return err
		}
	}
	var done []step
	for _, st := range a.order {
		if testOnlyBeforeWrite != nil && (st.exists || st.origExists) {
			if err := testOnlyBeforeWrite(st.key); err != nil {
				return undo(done, fmt.Errorf("cannot write %s: %w", st.name, err))
			}
		}
		s, err := a.write(st)
		if err != nil {
			return undo(done, err)
		}
		if s != nil {
			done = append(done, *s)
		}
	}
	for _, s := range done {
		if s.aside != "" {
			_ = fileio.Discard(s.aside) // best effort: the file is already gone from its name
		}
	}
	return nil
}

// undo reverts the steps done, newest first, and returns err with what
// happened to them.
func undo(done []step, err error) error {
	if len(done) == 0 {
		return err
	}
	var failed []string
	for i := len(done) - 1; i >= 0; i-- {
		if uerr := done[i].undo(); uerr != nil {
			failed = append(failed, fmt.Sprintf("%s (%s)", done[i].st.name, fileio.Reason(uerr)))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%w; undoing the files written before it failed for %s: %w", err, strings.Join(failed, ", "), ErrPartial)
	}
	return fmt.Errorf("%w; the %d %s written before it %s restored", err, len(done), plural(len(done), "file", "files"), plural(len(done), "was", "were"))
}

func (a *applier) write(st *state) (*step, error) {
	switch {
	case st.origExists && st.exists:
		if st.loaded && st.like != nil {
			if st.like == st.origInfo && bytes.Equal(st.data, st.origData) {
				return nil, nil
			}
			if lf := a.locked[st.key]; lf != nil && st.like == lf.Info() {
				if _, err := lf.Save(st.origData, fileio.Whole(st.origData, st.data)); err != nil {
					return nil, writeErr("write", st, err)
				}
				return &step{st: st, undo: func() error { return lf.Undo(st.data, st.origData) }}, nil
			}
			if err := fileio.Replace(st.key, st.like, st.data); err != nil {
				return nil, writeErr("write", st, err)
			}
			return &step{st: st, undo: func() error { return fileio.Replace(st.key, st.origInfo, st.origData) }}, nil
		}
		// Removed and made again by the patch: the old file goes aside
		// and a new one takes its name.
		aside, err := fileio.MoveAside(st.key)
		if err != nil {
			return nil, writeErr("write", st, err)
		}
		if err := fileio.CreateNew(st.key, st.data, st.like); err != nil {
			_ = fileio.Restore(aside, st.key) // best effort: reported through err
			return nil, writeErr("write", st, err)
		}
		return &step{st: st, aside: aside, undo: func() error {
			if err := os.Remove(st.key); err != nil {
				return err
			}
			return fileio.Restore(aside, st.key)
		}}, nil
	case st.exists:
		made, err := fileio.MkdirAll(filepath.Dir(st.key))
		if err != nil {
			return nil, fmt.Errorf("cannot create %s: %w", st.name, err)
		}
		if err := fileio.CreateNew(st.key, st.data, st.like); err != nil {
			removeDirs(made)
			if errors.Is(err, fileio.ErrExists) {
				return nil, fmt.Errorf("%s %w: another program created it while the patch was being applied", st.name, fileio.ErrExists)
			}
			return nil, writeErr("create", st, err)
		}
		return &step{st: st, undo: func() error {
			err := os.Remove(st.key)
			removeDirs(made)
			return err
		}}, nil
	case st.origExists:
		aside, err := fileio.MoveAside(st.key)
		if err != nil {
			return nil, writeErr("delete", st, err)
		}
		return &step{st: st, aside: aside, undo: func() error { return fileio.Restore(aside, st.key) }}, nil
	}
	return nil, nil
}

func writeErr(op string, st *state, err error) error {
	if errors.Is(err, fileio.ErrChanged) {
		return fileio.ChangedError(st.name)
	}
	return fmt.Errorf("cannot %s %s: %s", op, st.name, fileio.Reason(err))
}

// removeDirs removes directories a commit made, innermost first; one that
// is not empty stays.
func removeDirs(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		_ = os.Remove(made[i]) // best effort: a directory someone else filled stays
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
