//go:build darwin

package main

import (
	"os"
	"path/filepath"
)

// besideExecutable returns the spawn helper shipped next to this executable
// (following a symlink to it, as when the executable is linked onto PATH),
// or "" when there is none. A helper that is present but unusable is still
// returned: the runtime then reports it instead of quietly spawning another
// way.
func besideExecutable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	helper := filepath.Join(filepath.Dir(exe), helperName)
	if _, err := os.Lstat(helper); err != nil {
		return ""
	}
	return helper
}
