package editor

import (
	"errors"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Sentinels for the failures callers (and tests) tell apart. Their texts
// are short on purpose: each is wrapped with the path and a hint that read
// well to a model. The file-access ones are fileio's, which the editor
// shares with apply_patch.
var (
	errBinary      = fileio.ErrBinary
	errIsDir       = fileio.ErrIsDir
	errExists      = fileio.ErrExists
	errNoMatch     = errors.New("no match for old_str")
	errManyMatches = errors.New("old_str is not unique")
)

// osReason turns an OS error into a few words without the path it carries.
func osReason(err error) string { return fileio.Reason(err) }

// pathErr formats an operation failure on a path the model gave.
func pathErr(op, path string, err error) error { return fileio.PathErr(op, path, err) }

// statErr turns a failed stat of path into a message naming the nearest
// existing directory.
func statErr(path string, err error) error { return fileio.StatErr(path, err) }
