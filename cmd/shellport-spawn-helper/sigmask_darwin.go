//go:build darwin

package main

import (
	"syscall"
	"unsafe"
)

// unblockSignals clears the calling thread's mask; x/sys has no
// pthread_sigmask for darwin, and its sigprocmask system call acts on the
// calling thread.
func unblockSignals() error {
	const sigSetmask = 3 // SIG_SETMASK in <sys/signal.h>
	var none uint32
	_, _, errno := syscall.RawSyscall(syscall.SYS_SIGPROCMASK, sigSetmask, uintptr(unsafe.Pointer(&none)), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// resetReservedSignals has nothing to do on darwin: every signal there is one
// signal.Notify can take over, so none stays ignored across exec.
func resetReservedSignals() error { return nil }
