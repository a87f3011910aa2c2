//go:build linux && !amd64 && !arm64

package sandbox

// No seccomp program is built for this architecture: network off cannot
// be enforced here (the Landlock rules still are).
const (
	seccompArch    = 0
	foreignNrFloor = 0
)

var deniedSyscalls []uint32
