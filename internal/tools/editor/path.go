package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Limits on a path argument. They match common OS limits (PATH_MAX and
// NAME_MAX on Linux) so an over-long path gets a clear message instead of
// an ENAMETOOLONG from deep inside a write.
const (
	maxPathBytes = 4096
	maxNameBytes = 255
)

// checkPath validates the path argument and returns it cleaned. A relative
// path is refused with a hint built from the session's working directory.
func checkPath(path, cwd, command string) (string, error) {
	switch {
	case path == "":
		return "", fmt.Errorf("path is required: give the absolute path of a file or directory")
	case strings.IndexByte(path, 0) >= 0:
		return "", fmt.Errorf("path contains a NUL byte")
	case len(path) > maxPathBytes:
		return "", fmt.Errorf("path is too long (%d bytes; the limit is %d)", len(path), maxPathBytes)
	}
	for _, name := range strings.Split(path, string(filepath.Separator)) {
		if len(name) > maxNameBytes {
			return "", fmt.Errorf("path component %s is too long (%d bytes; the limit is %d)", quoteCut(name, 60), len(name), maxNameBytes)
		}
	}
	if strings.HasPrefix(path, "~") {
		return "", fmt.Errorf("path %q starts with ~, which is not expanded here; give the full absolute path", path)
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("path %q is not absolute; paths must start with /%s", path, relativeHint(path, cwd, command))
	}
	return filepath.Clean(path), nil
}

// relativeHint suggests the session-relative absolute path.
func relativeHint(path, cwd, command string) string {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return ""
	}
	joined := filepath.Join(cwd, path)
	if _, err := os.Lstat(joined); err == nil {
		return fmt.Sprintf(". Did you mean %s?", joined)
	}
	if command == "create" {
		return fmt.Sprintf(". To create it in the session directory, use %s", joined)
	}
	return fmt.Sprintf(" (%s, its place in the session directory, does not exist either)", joined)
}

// quoteCut quotes s, cut to at most n bytes (on a rune boundary) with a note
// of what was left out, so an echoed argument never floods the output.
func quoteCut(s string, n int) string {
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	cut := n
	for cut > 0 && !runeStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d more bytes)", s[:cut], len(s)-cut)
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
