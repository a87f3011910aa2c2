//go:build unix

package persistent

import "syscall"

// selfUsage is this process's CPU time (user + system, every thread) in
// nanoseconds and its context switches (voluntary and not) so far, for
// the benchmarks' per-call metrics; ok is false where getrusage fails.
func selfUsage() (cpuNs, switches int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), int64(ru.Nvcsw + ru.Nivcsw), true
}
