//go:build linux

package main

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

func unblockSignals() error {
	var none unix.Sigset_t
	return unix.PthreadSigmask(unix.SIG_SETMASK, &none, nil)
}

// resetReservedSignals sets signals 32 and 33 to their default action. glibc
// reserves them for itself and Go installs no handler for them, so
// signal.Notify cannot undo an inherited "ignore" there, and exec keeps an
// ignored signal ignored. An all-zero kernel sigaction is SIG_DFL with no
// flags and an empty mask, whatever the architecture's field order.
func resetReservedSignals() error {
	var dfl [4]uint64
	for sig := 32; sig <= 33; sig++ {
		_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		if errno != 0 {
			return errno
		}
	}
	return nil
}
