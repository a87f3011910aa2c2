//go:build linux

package rawio

import (
	"os"

	"golang.org/x/sys/unix"
)

// newBellFile makes a bell's eventfd, non-blocking so that the Go poller
// watches it, or returns nil.
func newBellFile(name string) *os.File {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), name)
}
