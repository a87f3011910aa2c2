package editor

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// checkPath validates the path argument and returns it cleaned. A relative
// path is refused with a hint built from the session's working directory.
func checkPath(path, cwd, command string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("path is required: give the absolute path of a file or directory")
	}
	if err := fileio.CheckPath(path); err != nil {
		return "", err
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
func quoteCut(s string, n int) string { return fileio.QuoteCut(s, n) }
