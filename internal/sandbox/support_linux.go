//go:build linux

package sandbox

import "strconv"

func probeSystem() Support {
	s := Support{Backend: BackendNone, Files: "none"}
	abi, why := landlockABI()
	s.LandlockABI = abi
	s.Seccomp, _ = seccompAvailable()
	if !s.Seccomp {
		_, s.Reason = seccompAvailable()
	}
	switch {
	case abi == 0:
		s.Reason = why
		return s
	case abi < minLandlockABI:
		s.Reason = "this kernel's Landlock is ABI " + strconv.Itoa(abi) + "; shellport needs ABI 3 or later (Linux 6.2), the first to confine truncation"
		return s
	}
	s.Backend, s.Files = BackendLandlock, "landlock-thread"
	if abi >= 6 {
		s.Scopes = []string{"signal", "abstract-unix-socket"}
	}
	return s
}
