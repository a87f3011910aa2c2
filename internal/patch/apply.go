package patch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Options configure Apply.
type Options struct {
	// Cwd is the directory relative paths resolve against. It must be
	// absolute for relative paths to be accepted.
	Cwd string
	// Policy vets every path the patch changes, as written (absolute and
	// cleaned) and with symbolic links resolved. Nil allows every path.
	Policy fileio.Policy
	// Shell is the name of the tool that runs commands, which refusals of
	// files this engine does not edit (binary, too large, not UTF-8)
	// suggest instead; empty means "a shell command".
	Shell string
}

// shell returns the name refusals suggest for what the engine cannot do.
func (o *Options) shell() string {
	if o.Shell == "" {
		return "a shell command"
	}
	return o.Shell
}

// Result reports an applied patch.
type Result struct {
	// Files has one entry per file section, in the patch's order.
	Files []Change
}

// Change is what one file section did.
type Change struct {
	Op Op
	// Path and MoveTo are the paths as the patch names them; Abs and AbsTo
	// their absolute forms.
	Path, MoveTo string
	Abs, AbsTo   string
	// Real is the file an update wrote when Abs is a symbolic link (the
	// link itself is kept), or the target of a deleted link; else "".
	Real string
	// Lines counts the lines of an added file.
	Lines int
	// Hunks says where each hunk of an update went.
	Hunks []HunkInfo
	// Added and Removed count the lines of an update's hunks.
	Added, Removed int
	// Same reports an update whose hunks leave the text as it was.
	Same bool
}

// Apply applies p to the file system, all of it or none. It resolves and
// vets every path, locks the names (fileio.Lock) and the existing files it
// updates (fileio.LockFiles: the same locks the editor takes, so the two
// tools queue for one file, through any of its names and across shellport
// processes), reads each file it changes and computes every new content;
// if any of that fails, nothing was written. Then it checks that no file
// changed on disk since it was read and writes: changed files are saved
// as the editor saves them (replaced atomically, or written in place after
// a backup when they have several hard links, are mount points, or their
// owner or extended attributes cannot be kept), new files are created
// (with their missing directories), deleted files are moved aside and
// removed once every write succeeded. If a write fails, the writes before
// it are undone and the error says so.
//
// Sections apply in order, each to the result of the ones before it, so a
// patch may update a file twice or add a file and then update it. An added
// file must not exist, a moved file's destination must not exist, and a
// deleted or updated file must.
//
// ctx is checked before the first write; once writing started, Apply
// finishes (or undoes) it whatever ctx says.
func Apply(ctx context.Context, p *Patch, opt Options) (*Result, error) {
	a := &applier{opt: opt, crlf: p.CRLF, op: p.Operation, states: map[string]*state{}}
	targets := make([]target, len(p.Files))
	var keys []string
	for i, f := range p.Files {
		t, err := a.resolve(f)
		if err != nil {
			return nil, err
		}
		targets[i] = t
		for _, k := range []string{t.dirKey, t.realKey, t.toKey} {
			if k != "" {
				keys = append(keys, k)
			}
		}
	}
	unlock, err := fileio.Lock(ctx, keys...)
	if err != nil {
		return nil, err
	}
	defer unlock()
	release, err := a.lockFiles(ctx, p.Files, targets)
	if err != nil {
		return nil, err
	}
	defer release()
	res := &Result{Files: make([]Change, len(p.Files))}
	for i, f := range p.Files {
		var err error
		if res.Files[i], err = a.simulate(f, targets[i]); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := a.commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// target holds the resolved paths of one file section.
type target struct {
	abs     string // absolute, cleaned
	dirKey  string // abs with its parent directories' links resolved
	realKey string // abs with every link resolved; "" when it does not resolve
	absTo   string // the same for the destination of a move
	toKey   string
}

// state is one file (a physical path) as the patch sees it: what was on
// disk, and what the sections so far made of it.
type state struct {
	key, name  string
	origExists bool
	origInfo   fs.FileInfo // from Lstat: a link's own info for a link
	origData   []byte
	loaded     bool // origData holds the file's text
	exists     bool
	data       []byte
	like       fs.FileInfo // whose mode and owner a write gives the file
	dirty      bool        // an earlier section made, removed or rewrote it
	abs        string      // the absolute path first named, for hints
}

type applier struct {
	opt    Options
	crlf   bool
	op     bool // the patch is one Responses API operation
	states map[string]*state
	order  []*state
	locked map[string]*fileio.Locked // the existing files updates read, by key
}

// lockFiles locks, all at once and in one order, the existing regular
// files the update sections name (see fileio.LockFiles), so that two
// patches naming hard-linked files crosswise cannot deadlock. A path that
// is not a regular file now is left to the section, which says what it is.
func (a *applier) lockFiles(ctx context.Context, files []File, targets []target) (func(), error) {
	var reals, names []string
	seen := map[string]bool{}
	for i, f := range files {
		real := targets[i].realKey
		if f.Op != Update || real == "" || seen[real] {
			continue
		}
		if fi, err := os.Lstat(real); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		seen[real] = true
		reals, names = append(reals, real), append(names, f.Path)
	}
	a.locked = map[string]*fileio.Locked{}
	if len(reals) == 0 {
		return func() {}, nil
	}
	locked, release, err := fileio.LockFiles(ctx, reals, names)
	if err != nil {
		return nil, err
	}
	for i, l := range locked {
		a.locked[reals[i]] = l
	}
	return release, nil
}

// say picks a message's wording: for an envelope section, or for a
// Responses API operation.
func (a *applier) say(envelope, operation string) string {
	if a.op {
		return operation
	}
	return envelope
}

func (a *applier) resolve(f File) (target, error) {
	var t target
	var err error
	if t.abs, t.dirKey, err = a.paths(f.Path); err != nil {
		return t, err
	}
	if f.Op == Update {
		switch real, err := filepath.EvalSymlinks(t.abs); {
		case err == nil:
			t.realKey = real
			if err := a.allow(real); err != nil {
				return t, err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return t, fileio.PathErr("resolve", f.Path, err)
		}
	}
	if f.MoveTo != "" {
		if t.absTo, t.toKey, err = a.paths(f.MoveTo); err != nil {
			return t, err
		}
	}
	return t, nil
}

// paths returns a path's absolute form and its physical name (parent
// links resolved), both vetted by the policy.
func (a *applier) paths(path string) (string, string, error) {
	abs, err := fileio.Abs(path, a.opt.Cwd)
	if err != nil {
		return "", "", err
	}
	if err := a.allow(abs); err != nil {
		return "", "", err
	}
	key, err := fileio.ResolveDir(abs)
	if err != nil {
		return "", "", fileio.PathErr("resolve", path, err)
	}
	if key != abs {
		if err := a.allow(key); err != nil {
			return "", "", err
		}
	}
	return abs, key, nil
}

func (a *applier) allow(path string) error {
	if a.opt.Policy == nil {
		return nil
	}
	return a.opt.Policy(path, true)
}

// state returns the state of a physical path, reading its metadata the
// first time.
func (a *applier) state(key, name, abs string) (*state, error) {
	if st := a.states[key]; st != nil {
		return st, nil
	}
	st := &state{key: key, name: name, abs: abs}
	switch fi, err := os.Lstat(key); {
	case err == nil:
		st.origExists, st.exists, st.origInfo, st.like = true, true, fi, fi
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fileio.PathErr("read", name, err)
	}
	a.states[key] = st
	a.order = append(a.order, st)
	return st, nil
}

func (a *applier) touched(key string) bool { return a.states[key] != nil }

func (a *applier) simulate(f File, t target) (Change, error) {
	ch := Change{Op: f.Op, Path: f.Path, MoveTo: f.MoveTo, Abs: t.abs, AbsTo: t.absTo}
	switch f.Op {
	case Add:
		st, err := a.state(t.dirKey, f.Path, t.abs)
		if err != nil {
			return ch, err
		}
		if err := a.canCreate(st, f.Path, a.say("an "+addMarker+" section never overwrites; use an "+updateMarker+" section to change it, or delete it first",
			"create_file never overwrites; use update_file to change it, or delete_file first")); err != nil {
			return ch, err
		}
		st.exists, st.data, st.dirty, st.like = true, []byte(f.Text), true, nil
		ch.Lines = len(textLines(f.Text))
	case Delete:
		st, err := a.state(t.dirKey, f.Path, t.abs)
		if err != nil {
			return ch, err
		}
		if !st.exists {
			return ch, a.missing(st, f.Path, "nothing was deleted")
		}
		if !st.dirty {
			switch m := st.origInfo.Mode(); {
			case m&fs.ModeSymlink != 0:
				ch.Real, _ = os.Readlink(st.key)
			case m.IsDir():
				return ch, fmt.Errorf("%s is a directory; %s removes files only", f.Path, a.say(deleteMarker, "delete_file"))
			case !m.IsRegular():
				return ch, fmt.Errorf("%s is %s, %w; this tool only changes regular files", f.Path, fileio.FileKind(m), fileio.ErrNotRegular)
			}
		}
		st.exists, st.data, st.dirty = false, nil, true
	case Update:
		return a.update(f, t, ch)
	}
	return ch, nil
}

func (a *applier) update(f File, t target, ch Change) (Change, error) {
	key := t.realKey
	if a.touched(t.dirKey) || key == "" {
		key = t.dirKey // made or removed by an earlier section, or missing
	}
	st, err := a.state(key, f.Path, t.abs)
	if err != nil {
		return ch, err
	}
	if !st.exists {
		return ch, a.missing(st, f.Path, "nothing was changed")
	}
	if !st.loaded && !st.dirty {
		var fi fs.FileInfo
		var data []byte
		if lf := a.locked[st.key]; lf != nil {
			fi = lf.Info()
			data, err = lf.ReadText(f.Path, a.opt.shell())
		} else {
			fi, data, err = fileio.ReadText(f.Path, st.key, a.opt.shell())
		}
		if err != nil {
			return ch, err
		}
		st.origInfo, st.like, st.origData, st.data, st.loaded = fi, fi, data, data, true
	}
	if key != t.dirKey {
		ch.Real = key // the path itself is a link (not just a directory above it)
	}
	before := st.data
	data, info, err := UpdateText(f.Path, before, f.Hunks, a.crlf)
	if err != nil {
		return ch, err
	}
	ch.Hunks = info
	ch.Added, ch.Removed = Counts(f.Hunks)
	ch.Same = bytes.Equal(data, before)
	if f.MoveTo == "" || t.toKey == st.key {
		st.data, st.dirty = data, true
		return ch, nil
	}
	if li, err := os.Lstat(t.abs); err == nil && li.Mode()&fs.ModeSymlink != 0 && !a.touched(t.dirKey) {
		return ch, fmt.Errorf("%s is a symbolic link; move links with bash (mv), and let the patch change the file they point to", f.Path)
	}
	dst, err := a.state(t.toKey, f.MoveTo, t.absTo)
	if err != nil {
		return ch, err
	}
	if err := a.canCreate(dst, f.MoveTo, "a move never overwrites; delete it first in the same patch if that is intended"); err != nil {
		return ch, fmt.Errorf("cannot move %s to %s: %w", f.Path, f.MoveTo, err)
	}
	dst.exists, dst.data, dst.like, dst.dirty = true, data, st.like, true
	st.exists, st.data, st.dirty = false, nil, true
	return ch, nil
}

// canCreate checks that a file may be created at st: nothing there (on
// disk or by an earlier section) and no file where a parent directory
// must be.
func (a *applier) canCreate(st *state, name, why string) error {
	if st.exists {
		kind := "made by an earlier section of this patch"
		switch {
		case st.origExists && !st.dirty:
			kind = fileio.FileKind(st.origInfo.Mode())
		case st.origExists:
			kind = "a file, changed by an earlier section of this patch"
		}
		return fmt.Errorf("%s %w (%s); %s", name, fileio.ErrExists, kind, why)
	}
	for dir := filepath.Dir(st.key); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if up := a.states[dir]; up != nil && up.exists {
			return fmt.Errorf("cannot create %s: %s is a file", name, up.name)
		}
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("cannot create %s: %s is not a directory", name, dir)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fileio.PathErr("create", name, err)
		}
	}
	return nil
}

func (a *applier) missing(st *state, name, what string) error {
	if st.origExists {
		return fmt.Errorf("%s %w: an earlier section of this patch removes it; %s", name, fileio.ErrNotFound, what)
	}
	return fmt.Errorf("%w; %s", fileio.NotFound(name, st.abs), what)
}
