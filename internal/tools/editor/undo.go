package editor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/fileio"
)

// Bounds of the undo history: the edits kept per file, and the bytes of
// earlier file contents kept per session. Past either, the oldest steps
// go first.
const (
	maxUndoSteps = 10
	maxUndoBytes = 64 << 20
)

// undoLog is the history undo_edit reverts: per session (by its Key, so a
// session never undoes another's edit) and per file (by its resolved path,
// so edits through a symbolic link and through the file share one), the
// content each edit replaced and what it wrote there (a created file: a
// digest of what it wrote). An undo puts
// the old content back only while the file still holds exactly what the
// edit wrote: a change made since by a command or another program is never
// overwritten.
type undoLog struct {
	mu       sync.Mutex
	sessions map[string]*sessionUndo
}

type sessionUndo struct {
	files map[string][]undoStep // oldest first
	bytes int64                 // of every step's before
	seq   uint64
}

// undoStep is one edit that can be undone.
type undoStep struct {
	before []byte // the content the edit replaced
	// The edit wrote before[:start], text, before[end:]. Keeping the change
	// rather than a digest of the result spares every edit a hash of the
	// whole file (27 ms for 35 MB, issue 16): the undo compares the file
	// with these three pieces instead, and before is kept anyway.
	start, end int
	text       []byte
	created    bool     // the edit created the file: undoing it removes the file
	after      [32]byte // created: SHA-256 of the content create wrote
	seq        uint64   // order across the session's files
}

// holdsAfter tells whether data is exactly what the edit wrote.
func (st undoStep) holdsAfter(data []byte) bool {
	tail := st.before[st.end:]
	return len(data) == st.start+len(st.text)+len(tail) &&
		bytes.Equal(data[:st.start], st.before[:st.start]) &&
		bytes.Equal(data[st.start:st.start+len(st.text)], st.text) &&
		bytes.Equal(data[st.start+len(st.text):], tail)
}

// size is what the step holds in memory, for maxUndoBytes.
func (st undoStep) size() int64 { return int64(len(st.before) + len(st.text)) }

func newUndoLog() *undoLog { return &undoLog{sessions: map[string]*sessionUndo{}} }

// recordEdit remembers an edit of real that replaced data as c says.
func (u *undoLog) recordEdit(session, real string, data []byte, c change) {
	if u == nil || session == "" {
		return
	}
	u.push(session, real, undoStep{before: slices.Clip(data), start: c.start, end: c.end, text: slices.Clip(c.text)})
}

// recordCreate remembers that path was created holding text.
func (u *undoLog) recordCreate(session, path string, text []byte) {
	if u == nil || session == "" {
		return
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return // gone already: nothing to undo
	}
	u.push(session, real, undoStep{created: true, after: sha256.Sum256(text)})
}

func (u *undoLog) push(session, real string, st undoStep) {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.sessions[session]
	if s == nil {
		s = &sessionUndo{files: map[string][]undoStep{}}
		u.sessions[session] = s
	}
	if st.size() > maxUndoBytes {
		// Too large to keep: the earlier steps of this file can no longer
		// be reached either, since each undo starts from the latest edit.
		s.drop(real, len(s.files[real]))
		return
	}
	s.seq++
	st.seq = s.seq
	s.files[real] = append(s.files[real], st)
	s.bytes += st.size()
	if n := len(s.files[real]); n > maxUndoSteps {
		s.drop(real, n-maxUndoSteps)
	}
	for s.bytes > maxUndoBytes {
		oldest := ""
		for path, steps := range s.files {
			if oldest == "" || steps[0].seq < s.files[oldest][0].seq {
				oldest = path
			}
		}
		s.drop(oldest, 1)
	}
}

// drop forgets the n oldest steps of real.
func (s *sessionUndo) drop(real string, n int) {
	steps := s.files[real]
	for _, st := range steps[:n] {
		s.bytes -= st.size()
	}
	if steps = steps[n:]; len(steps) == 0 {
		delete(s.files, real)
		return
	}
	s.files[real] = steps
}

// last returns the latest step of real and how many steps it has.
func (u *undoLog) last(session, real string) (undoStep, int, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if s := u.sessions[session]; s != nil {
		if steps := s.files[real]; len(steps) > 0 {
			return steps[len(steps)-1], len(steps), true
		}
	}
	return undoStep{}, 0, false
}

// pop forgets the step with seq, if it is still the latest of real.
func (u *undoLog) pop(session, real string, seq uint64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.sessions[session]
	if s == nil {
		return
	}
	steps := s.files[real]
	if len(steps) == 0 || steps[len(steps)-1].seq != seq {
		return
	}
	s.bytes -= steps[len(steps)-1].size()
	if steps = steps[:len(steps)-1]; len(steps) == 0 {
		delete(s.files, real)
	} else {
		s.files[real] = steps
	}
}

// closeSession forgets a session's history.
func (u *undoLog) closeSession(session string) {
	u.mu.Lock()
	delete(u.sessions, session)
	u.mu.Unlock()
}

// undoCall runs undo_edit: it takes only a path.
func (t *tool) undoCall(ctx context.Context, call *tools.Call, p *params) (*tools.Result, error) {
	if extra := extraArgs(p, nil); extra != "" {
		return tools.Errorf("undo_edit does not take %s; undo_edit takes path only", extra), nil
	}
	if p.Path == "" {
		return tools.Errorf("path is required: give the absolute path of the file whose last edit to undo"), nil
	}
	path, err := checkPath(p.Path, call.Session.Cwd, p.Command)
	if err != nil {
		return tools.Errorf("%s", err), nil
	}
	// An undo writes like an edit: the same policy check, on a thread the
	// sandbox confines (see call).
	var res *tools.Result
	if rerr := call.Session.Sandbox.Run(func() {
		if err = vet(call.Session.PathPolicy, path, p.Command); err == nil {
			res, err = t.undoEdit(ctx, call.Session.Key, path)
		}
	}); rerr != nil {
		return tools.Errorf("%s: %v", p.Command, rerr), nil
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return tools.Errorf("%s", err), nil
	}
	return res, nil
}

// undoEdit reverts the session's latest edit of path.
func (t *tool) undoEdit(ctx context.Context, session, path string) (*tools.Result, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, _, ok := t.undo.last(session, path); ok {
				return nil, fmt.Errorf("%s no longer exists, so its last edit cannot be undone", path)
			}
		}
		return nil, fmt.Errorf("there is no edit of %s to undo: %w", path, statErr(path, err))
	}
	st, n, ok := t.undo.last(session, real)
	if !ok {
		return nil, fmt.Errorf("there is no edit of %s to undo in this session; undo_edit reverts the edits this tool made (the last %d of each file)", path, maxUndoSteps)
	}
	left := ""
	if n > 1 {
		left = fmt.Sprintf(" %d earlier %s of it can still be undone.", n-1, plural(n-1, "edit", "edits"))
	}
	if st.created {
		if err := t.undoCreate(ctx, path, real, st); err != nil {
			return nil, err
		}
		t.undo.pop(session, real, st.seq)
		return &tools.Result{
			Text:       fmt.Sprintf("Undid the creation of %s: the file was removed (directories made for it were kept).", path),
			Structured: map[string]any{"path": path, "removed": true},
		}, nil
	}
	res, err := t.modify(ctx, "", path, func(data []byte, _ func(int) int) (change, error) {
		if !st.holdsAfter(data) {
			return change{}, changedSince(path)
		}
		return restoreChange(data, st.before), nil
	}, func(change, []byte) string {
		return fmt.Sprintf("Undid the last edit of %s.%s", path, left)
	})
	if err != nil {
		return nil, err
	}
	t.undo.pop(session, real, st.seq)
	res.Structured["undone"] = true
	return res, nil
}

// undoCreate removes a file the tool created, under the edit lock, if it
// still holds what create wrote.
func (t *tool) undoCreate(ctx context.Context, path, real string, st undoStep) error {
	if real != path {
		return fmt.Errorf("%s is now a symbolic link to %s, not the file this tool created; nothing was undone", path, real)
	}
	lf, release, err := fileio.OpenLocked(ctx, path, real)
	if err != nil {
		return err
	}
	defer release()
	data, err := lf.ReadAll()
	if err != nil {
		return fileio.PathErr("read", path, err)
	}
	if sha256.Sum256(data) != st.after {
		return changedSince(path)
	}
	if err := os.Remove(real); err != nil {
		return fmt.Errorf("cannot remove %s: %s; nothing was undone", path, osReason(err))
	}
	return nil
}

func changedSince(path string) error {
	return fmt.Errorf("%s was changed after its last edit through this tool (by a command or another program), and undoing the edit would overwrite that change, so nothing was undone. View the file and revert the edit with str_replace", path)
}

// restoreChange is the smallest change that turns data into before: the
// bytes between their common prefix and common suffix.
func restoreChange(data, before []byte) change {
	p := 0
	for p < len(data) && p < len(before) && data[p] == before[p] {
		p++
	}
	s := 0
	for s < len(data)-p && s < len(before)-p && data[len(data)-1-s] == before[len(before)-1-s] {
		s++
	}
	line := 1 + bytes.Count(data[:p], nl)
	return change{start: p, end: len(data) - s, text: before[p : len(before)-s], startLine: line, firstLine: line}
}
