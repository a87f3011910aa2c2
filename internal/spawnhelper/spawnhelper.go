// Package spawnhelper is the runtime's side of shellport-spawn-helper, the
// small C program (cmd/shellport-spawn-helper) through which every process
// the runtime starts is spawned: where to find it, and on Linux how to start
// a program under it as a supervisor and read what it reports.
//
// On Linux each program runs under its own supervisor ([Start]): a child
// subreaper that owns every process the program leaves behind and kills all
// of them when the program ends, when the runtime asks ([Process.KillAll]),
// or when the runtime is gone — this process holds the read end of each
// supervisor's report pipe until that supervisor's end, and when the
// process dies, however it dies, every supervisor finds its write end in
// error at once. On macOS the helper is an exec
// shim for terminals (see internal/pty); there is no subreaper there.
package spawnhelper

import (
	"fmt"
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

// Required reports whether this platform cannot run commands without the
// helper: on Linux every process the runtime starts runs under it, and a
// runtime that cannot find it refuses to start rather than run commands
// unsupervised.
func Required() bool { return runtime.GOOS == "linux" }

// NotFound is the error a runtime reports when the helper is required and
// Find found none. where says where the carrier looked ("beside the
// library"), dir is that directory ("" when it could not tell).
func NotFound(dir, where string) error {
	looked := "its directory could not be determined"
	if dir != "" {
		looked = "there is no " + Name + " in " + dir
	}
	return fmt.Errorf("%s is required on %s to run commands and was not found: %s is not set, and %s (%s); reinstall shellport, or set %s to the helper's path",
		Name, runtime.GOOS, EnvVar, looked, where, EnvVar)
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
// the library and the executable: Linux (the supervisor) and macOS (the
// terminal exec shim: posix_spawn there can create a session but not
// attach its controlling terminal).
func shipped() bool { return runtime.GOOS == "linux" || runtime.GOOS == "darwin" }

// Restrictions are what a session's sandbox (internal/sandbox) applies to
// a program: on Linux a Landlock ruleset and a seccomp BPF program, given
// to the helper as descriptors and applied in the program's own process
// just before exec (--landlock-ruleset, --seccomp-filter); on macOS an
// argv prefix (sandbox-exec with a Seatbelt profile) the program runs
// under. The zero value restricts nothing. The spawner closes its copies
// once the program has started (Close).
type Restrictions struct {
	Landlock *os.File
	Seccomp  *os.File
	Wrapper  []string
}

// Close closes the descriptors; the started program holds its own copies.
func (r Restrictions) Close() {
	for _, f := range []*os.File{r.Landlock, r.Seccomp} {
		if f != nil {
			_ = f.Close() // Best effort: nothing was written to them.
		}
	}
}
