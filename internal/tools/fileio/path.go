package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CheckPath applies the rules every path argument follows, whatever the
// tool: not empty, no NUL byte, within MaxPathBytes and MaxNameBytes per
// component, and no leading ~ (which nothing here expands). It does not
// require the path to be absolute; see Abs.
func CheckPath(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("path is required")
	case strings.IndexByte(path, 0) >= 0:
		return fmt.Errorf("path contains a NUL byte")
	case len(path) > MaxPathBytes:
		return fmt.Errorf("path is too long (%d bytes; the limit is %d)", len(path), MaxPathBytes)
	}
	for _, name := range strings.Split(path, string(filepath.Separator)) {
		if len(name) > MaxNameBytes {
			return fmt.Errorf("path component %s is too long (%d bytes; the limit is %d)", QuoteCut(name, 60), len(name), MaxNameBytes)
		}
	}
	if strings.HasPrefix(path, "~") {
		return fmt.Errorf("path %q starts with ~, which is not expanded here; give the full absolute path", path)
	}
	return nil
}

// Abs checks path with CheckPath and returns it absolute and cleaned: an
// absolute path as it is, a relative one joined to cwd. A relative path
// with no absolute cwd to resolve against is refused. ".." is resolved
// lexically, so "/repo/../etc" is "/etc"; a Policy then sees where the path
// really points.
func Abs(path, cwd string) (string, error) {
	if err := CheckPath(path); err != nil {
		return "", err
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("path %q is relative and there is no session directory to resolve it against; give an absolute path", path)
	}
	full := filepath.Join(cwd, path)
	if len(full) > MaxPathBytes {
		return "", fmt.Errorf("path is too long once joined to the session directory (%d bytes; the limit is %d)", len(full), MaxPathBytes)
	}
	return full, nil
}

// Resolve returns the absolute path abs with every symbolic link in it
// resolved, including a link in the last component. For a path that does
// not exist (yet) it resolves the longest existing prefix and appends the
// rest, so the result is where a file created at abs would land.
func Resolve(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if _, lerr := os.Lstat(abs); lerr == nil {
		return "", fmt.Errorf("%s is a symbolic link to a missing file", abs)
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	dir, err := Resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// ResolveDir returns abs with the symbolic links of its parent directories
// resolved but not a link in its last component: the name of abs itself,
// which a removal or a creation acts on.
func ResolveDir(abs string) (string, error) {
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	dir, err := Resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// Within returns a Policy that allows only paths inside one of roots (a
// root itself included), reads and writes alike. Roots are resolved once,
// here, so a root reached through a symbolic link (/tmp on macOS) still
// contains the resolved paths the policy is asked about.
func Within(roots ...string) Policy {
	var clean []string
	for _, r := range roots {
		r = filepath.Clean(r)
		clean = append(clean, r)
		if real, err := filepath.EvalSymlinks(r); err == nil && real != r {
			clean = append(clean, real)
		}
	}
	return func(path string, _ bool) error {
		for _, r := range clean {
			if inside(path, r) {
				return nil
			}
		}
		return fmt.Errorf("%s is outside the directories this session may change (%s)", path, strings.Join(roots, ", "))
	}
}

func inside(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// QuoteCut quotes s, cut to at most n bytes (on a rune boundary) with a note
// of what was left out, so an echoed argument never floods the output.
func QuoteCut(s string, n int) string {
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%q… (%d more bytes)", s[:cut], len(s)-cut)
}
