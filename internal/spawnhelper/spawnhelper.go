// Package spawnhelper finds shellport-spawn-helper for the carriers: the
// shared library looks beside itself, the executable beside itself, and
// both honour SHELLPORT_SPAWN_HELPER first.
package spawnhelper

import (
	"os"
	"path/filepath"
	"runtime"
)

// EnvVar overrides where the spawn helper is. When it is set, its path is
// used as is: the runtime rejects a missing or non-executable file with an
// error naming it, and never falls back to another way of spawning.
const EnvVar = "SHELLPORT_SPAWN_HELPER"

// Name is the helper's file name beside the library or the executable.
const Name = "shellport-spawn-helper"

// Find returns the spawn helper a carrier's runtimes use by default:
// SHELLPORT_SPAWN_HELPER when it is set and not empty, else the helper
// shipped in dir (the directory of the library or the executable) on
// platforms that ship one, else "". It is read at every call, so a host may
// set the variable after loading the library.
func Find(dir string) string {
	if path := os.Getenv(EnvVar); path != "" {
		return path
	}
	if dir == "" || !shipped() {
		return ""
	}
	helper := filepath.Join(dir, Name)
	// A helper that is present but unusable is still returned: the runtime
	// then reports it instead of quietly spawning another way.
	if _, err := os.Lstat(helper); err != nil {
		return ""
	}
	return helper
}

// BesideExecutable returns the directory of the running executable,
// following a symlink to it (as when it is linked onto PATH), or "".
func BesideExecutable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Dir(exe)
}

// shipped reports whether builds for this platform ship the helper beside
// the library and the executable. Only macOS needs it: posix_spawn there can
// create a session but not attach its controlling terminal.
func shipped() bool { return runtime.GOOS == "darwin" }
