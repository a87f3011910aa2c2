package sandbox

import "sync"

// Support is what this machine can enforce, as initialize reports it.
type Support struct {
	// Backend is "landlock" (Linux), "seatbelt" (macOS) or "none".
	Backend string `json:"backend"`
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int `json:"landlockAbi,omitempty"`
	// Seccomp reports that seccomp filters can be applied (network off).
	Seccomp bool `json:"seccomp"`
	// Scopes are the Landlock scopes applied in restricted modes: "signal"
	// (a command cannot signal processes outside its sandbox: its
	// supervisor, the runtime, other sessions) and "abstract-unix-socket"
	// (with network off).
	Scopes []string `json:"scopes,omitempty"`
	// Files says how the editor and apply_patch are held to a policy:
	// "landlock-thread" (the kernel, on a restricted thread) or
	// "path-checks" (resolved paths checked before each change).
	Files string `json:"files"`
	// Reason says why the backend is none, or what is missing.
	Reason string `json:"reason,omitempty"`
}

// minLandlockABI is the oldest Landlock ABI the landlock backend uses: ABI 3
// (Linux 6.2) is the first to confine truncation, without which a command
// could empty any file it may read.
const minLandlockABI = 3

var probed struct {
	once sync.Once
	s    Support
}

// testOnlySupport, when set by a test, replaces what the machine reports.
var testOnlySupport *Support

// Probe reports what this machine can enforce (probed once).
func Probe() Support {
	s := probe()
	s.Scopes = append([]string(nil), s.Scopes...)
	return s
}

func probe() Support {
	if testOnlySupport != nil {
		return *testOnlySupport
	}
	probed.once.Do(func() { probed.s = probeSystem() })
	return probed.s
}
