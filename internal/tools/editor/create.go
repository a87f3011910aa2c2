package editor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shellport/shellport/internal/tools"
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
	if err := createNew(path, []byte(fileText)); err != nil {
		if errors.Is(err, fs.ErrExist) {
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
		kind = fileKind(fi.Mode())
	}
	return fmt.Errorf("%s %w (%s); create never overwrites. Use str_replace or insert to change a file, or remove it with %s first", path, errExists, kind, shell)
}

// mkdirs creates dir and its missing parents and returns the topmost one it
// made, or "" when dir existed.
func mkdirs(dir string) (string, error) {
	top := ""
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return "", fmt.Errorf("cannot create a file under %s: it is not a directory", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", pathErr("create directory", d, err)
		}
		top = d
		if d == filepath.Dir(d) {
			break
		}
	}
	if top == "" {
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", pathErr("create directory", dir, err)
	}
	return top, nil
}
