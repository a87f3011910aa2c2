package pty

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFound is returned when a program name is not found in PATH.
var ErrNotFound = errors.New("program not found in PATH")

// lookPath resolves name the way execvp would for a child whose environment
// is env: a name with a slash is used as is, anything else is searched in
// env's PATH (the runtime's PATH when env is nil or has none).
func lookPath(name string, env []string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("pty: empty program path")
	}
	if strings.Contains(name, "/") {
		return name, nil
	}
	path, ok := envValue(env, "PATH")
	if !ok {
		path = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("pty: %q: %w", name, ErrNotFound)
}

func envValue(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}
