//go:build !linux

package persistent

import "syscall"

// rawRead and rawWrite are plain system calls here (see rawsys_linux.go).
func rawRead(fd uintptr, b []byte) (int, error) { return syscall.Read(int(fd), b) }

func rawWrite(fd uintptr, b []byte) (int, error) { return syscall.Write(int(fd), b) }
