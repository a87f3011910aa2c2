//go:build unix

package fileio

import "syscall"

// openFlags keeps an open from blocking on a FIFO that has no writer and
// from making a terminal the caller's controlling terminal. The type check
// after the open then refuses such files.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
