//go:build linux

package inproc

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canParkInKernel says whether park and wakeParked work here.
const canParkInKernel = true

// The futex operations of linux/futex.h, for this process's own words.
const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// park sleeps while *word is 0, until wakeParked or d passes. It may
// return early (a signal); the caller looks at the word again.
func park(word *atomic.Uint32, d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	// syscall.Syscall6, not a raw call: the Go runtime knows the thread is
	// in a system call and can give its P to the goroutines that answer.
	_, _, _ = syscall.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWaitPrivate, 0,
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// wakeParked wakes every thread parked on word. A raw call: it never
// blocks, and a Go system call would wake the runtime's monitor thread.
func wakeParked(word *atomic.Uint32) {
	_, _, _ = unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWakePrivate,
		uintptr(1<<31-1), 0, 0, 0)
}
