//go:build !linux

package persistent

// waitingForWake cannot be known without /proc/PID/syscall: a call whose
// wake-up another process took waits for its timeout there.
func (s *shell) waitingForWake() bool { return false }
