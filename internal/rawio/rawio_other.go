//go:build unix && !linux

package rawio

import "syscall"

// Read is read(2) of fd, through package syscall (see rawio_linux.go for
// why Linux differs).
func Read(fd uintptr, b []byte) (int, error) { return syscall.Read(int(fd), b) }

// Write is write(2) to fd, through package syscall.
func Write(fd uintptr, b []byte) (int, error) { return syscall.Write(int(fd), b) }
