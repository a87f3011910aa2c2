package editor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/fileio"
)

// create writes a new file with exactly fileText, making missing parent
// directories. An existing path — a file, a directory or a symlink, even a
// dangling one — is refused and left alone.
func (t *tool) create(ctx context.Context, session, path, fileText string) (*tools.Result, error) {
	if fi, err := os.Lstat(path); err == nil {
		return nil, existsErr(path, fi, t.shell)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, pathErr("create", path, err)
	}
	made, err := mkdirs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := fileio.CreateNew(path, []byte(fileText), nil); err != nil {
		if errors.Is(err, fileio.ErrExists) {
			if fi, lerr := os.Lstat(path); lerr == nil {
				return nil, existsErr(path, fi, t.shell)
			}
		}
		return nil, fmt.Errorf("cannot create %s: %s", path, osReason(err))
	}
	t.undo.recordCreate(session, path, []byte(fileText))
	lines := countLines([]byte(fileText))
	text := fmt.Sprintf("Created %s (%d %s, %d bytes).", path, lines, plural(lines, "line", "lines"), len(fileText))
	if made != "" {
		text += fmt.Sprintf(" Missing directories were created, starting at %s.", made)
	}
	return &tools.Result{
		Text:       text,
		Structured: map[string]any{"path": path, "line": 1, "created": true, "bytes": len(fileText)},
	}, nil
}

func existsErr(path string, fi fs.FileInfo, shell string) error {
	kind := "a file"
	switch {
	case fi.IsDir():
		kind = "a directory"
	case fi.Mode()&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	case !fi.Mode().IsRegular():
		kind = fileio.FileKind(fi.Mode())
	}
	return fmt.Errorf("%s %w (%s); create never overwrites. Use str_replace or insert to change a file, or remove it with %s first", path, errExists, kind, shell)
}

// mkdirs creates dir and its missing parents and returns the topmost one it
// made, or "" when dir existed.
func mkdirs(dir string) (string, error) {
	made, err := fileio.MkdirAll(dir)
	if err != nil || len(made) == 0 {
		return "", err
	}
	return made[0], nil
}
