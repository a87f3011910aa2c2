// Package fileio is the file access the editing tools (str_replace_editor
// and apply_patch) share: the rules a path argument must follow, reading a
// file that is about to be changed (regular, text, valid UTF-8, bounded),
// the locks that serialise changes of one file, the writes that keep what
// a file is, and the Policy a session's sandbox vets paths with.
//
// Locks: Lock takes the locks of names (symlink-resolved paths), LockFiles
// and OpenLocked those of the files behind them, by device and inode, plus
// an advisory lock (flock) on each file that other shellport processes
// take too. Every tool in the process takes the same locks, so an edit and
// a patch of one file, through any of its names, from any session or
// runtime, take turns.
//
// Large files: Locked.MapForChange maps a large file whose change time is
// already settled instead of reading it, for a caller that only reads it
// until it saves; Save then trusts the change time alone, or answers
// ErrReadAgain.
//
// Writes: Locked.Save replaces a file atomically (a temporary file beside
// it, hidden and named ".NAME.shellport-XXXX.tmp", gets the content, the
// owner, the mode bits and the extended attributes, is synced and renamed
// over it), or writes it in place after a synced backup when a new file
// could not take its place: several hard links, a mount point, an owner
// or attributes a new file cannot be given. Just before writing it checks
// that the file is still exactly what was read, and refuses (ErrChanged)
// if another program changed it. CreateNew, MoveAside and Restore create,
// set aside and bring back files for changes that must be undoable.
//
// Nothing here knows about tools or models, but the error texts are written
// to be shown to a model as they are: lowercase, naming the path and what
// to do. Errors wrap the sentinels below, so callers test them with
// errors.Is.
package fileio

import "errors"

// Sentinels for the failures callers tell apart.
var (
	ErrBinary     = errors.New("binary file")
	ErrNotUTF8    = errors.New("not valid UTF-8")
	ErrNotRegular = errors.New("not a regular file")
	ErrIsDir      = errors.New("is a directory")
	ErrNotFound   = errors.New("does not exist")
	ErrExists     = errors.New("already exists")
	ErrTooLarge   = errors.New("too large to edit")
	ErrChanged    = errors.New("changed on disk")
)

// MaxTextBytes caps the size of a file a tool reads whole to change it. An
// edit holds the file in memory; far beyond source-file sizes, sed is the
// better tool and a Python host process should not grow by gigabytes.
const MaxTextBytes = 256 << 20

// Limits on a path argument. They match common OS limits (PATH_MAX and
// NAME_MAX on Linux) so an over-long path gets a clear message instead of
// an ENAMETOOLONG from deep inside a write.
const (
	MaxPathBytes = 4096
	MaxNameBytes = 255
)

// Policy decides whether a tool may touch a path: read it (write false) or
// change, create or remove it (write true). It is asked with the path as the
// model named it (absolute and cleaned) and again with symbolic links
// resolved, and a non-nil error refuses the operation; its text reaches the
// model. A nil Policy allows every path.
type Policy func(path string, write bool) error
