// Package fileio is the file access the editing tools share: the rules a
// path argument must follow, reading a file that is about to be changed
// (regular, text, valid UTF-8, bounded), atomic writes that keep mode and
// owner, moving a file aside so a change can be undone, and a lock per file
// that every tool in the process takes before it changes that file.
//
// Nothing here knows about tools or models, but the error texts are written
// to be shown to a model as they are: lowercase, naming the path and what
// to do. Errors wrap the sentinels below, so callers test them with
// errors.Is.
//
// Every write goes to a temporary file beside its target (hidden, named
// ".NAME.shellport-XXXX.tmp"), is synced and renamed over the target, so a
// reader sees the old file or the new one, never a mix, and a failed write
// leaves the original as it was.
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
