// Package sandbox is the one place a session's sandbox is decided: what
// the processes a session starts, and the file tools acting for it, may
// write and reach. It turns the runtime's default and a session's request
// into a [Policy], and a Policy into what each enforcing party applies:
//
//   - for a process (bash, persistent bash, background tasks): on Linux a
//     Landlock ruleset and a seccomp BPF program, handed as descriptors to
//     the spawn helper, which applies both in the program's own process
//     just before exec ([Policy.Restrictions]); on macOS an argv prefix
//     that runs the program under /usr/bin/sandbox-exec with a Seatbelt
//     profile generated from the policy ([SeatbeltProfile]);
//   - for the editor and apply_patch: [Policy.Run] runs their file
//     operations on an OS thread restricted with the same Landlock rules
//     (Linux; the thread is locked and never unlocked, so it dies with its
//     goroutine), and [Policy.PathPolicy] refuses a path outside the policy
//     early with a message that names it and the mode.
//
// The runtime's own process is never restricted: in the C ABI it is the
// user's Python interpreter, and Landlock restrictions cannot be lifted.
//
// Modes: [ModeFullAccess] (the default: no sandbox), [ModeWorkspaceWrite]
// (reads anywhere; writes under the session's directory, the writable
// roots, the terminal, /dev/null and the temporary directories), and
// [ModeReadOnly] (writes to the terminal and /dev/null only). Network is
// off in both restricted modes unless asked for. When the machine cannot
// enforce what a policy asks, resolving it fails (onUnsupported "fail",
// the default) or the policy says what is not enforced in every result
// (onUnsupported "warn"); it never runs unconfined silently.
package sandbox

import "errors"

// Modes.
const (
	ModeReadOnly       = "read-only"
	ModeWorkspaceWrite = "workspace-write"
	ModeFullAccess     = "full-access"
)

// What to do when the machine cannot enforce a policy.
const (
	OnUnsupportedFail = "fail"
	OnUnsupportedWarn = "warn"
)

// Backends: what enforces a policy on this machine.
const (
	BackendLandlock = "landlock" // Landlock + seccomp, applied by the spawn helper (Linux)
	BackendSeatbelt = "seatbelt" // sandbox-exec around the program (macOS)
	BackendNone     = "none"
)

// ErrUnsupported marks a policy the machine cannot enforce.
var ErrUnsupported = errors.New("cannot be enforced on this machine")

// Config is the sandbox member of the runtime config and of session/new
// and session/update, as JSON:
//
//	{"mode": "workspace-write", "writableRoots": ["/home/u/.cache"],
//	 "network": false, "writableTmp": true, "protected": [".git"],
//	 "onUnsupported": "fail", "allowWidening": false}
//
// A zero field means "not given": a session's Config is merged over the
// runtime's field by field (see Merge).
type Config struct {
	// Mode is "read-only", "workspace-write" or "full-access".
	Mode string `json:"mode,omitempty"`
	// WritableRoots are more absolute paths (directories or files) that
	// workspace-write lets commands change, beside the session's cwd.
	WritableRoots []string `json:"writableRoots,omitempty"`
	// Network lets commands of a restricted mode open network sockets
	// (default false). AF_UNIX sockets are always allowed.
	Network *bool `json:"network,omitempty"`
	// WritableTmp makes the temporary directories (/tmp, $TMPDIR)
	// writable in workspace-write (default true).
	WritableTmp *bool `json:"writableTmp,omitempty"`
	// Protected are paths that stay read-only inside writable roots:
	// absolute, or relative to each writable directory (".git"). Only a
	// backend that can enforce them accepts them (Seatbelt); see docs.
	Protected []string `json:"protected,omitempty"`
	// OnUnsupported is "fail" (the default: a policy the machine cannot
	// enforce is refused) or "warn" (the session runs with what can be
	// enforced, and every result says what is not).
	OnUnsupported string `json:"onUnsupported,omitempty"`
	// AllowWidening, in the runtime config only, lets a session ask for
	// more than the runtime's default (a wider mode, network, more roots).
	AllowWidening bool `json:"allowWidening,omitempty"`
}
