//go:build unix

package persistent

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func mkfifo(path string) error {
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return fmt.Errorf("persistent: make FIFO %q: %w", path, err)
	}
	return nil
}

// openFIFO opens a FIFO of the private directory read-write, so that the
// open never blocks and neither end ever sees end of file, in
// non-blocking mode but outside the Go poller: a read of an empty FIFO or
// a write to a full one fails with EAGAIN instead of waiting. The runtime
// never waits on these FIFOs (the return FIFO is read only once its frame
// has arrived, the control FIFO takes one wake byte per call), and a FIFO
// in the poller wakes the poller's thread at every write into it by
// either side: three times per call for nothing (issue 16). The file is
// made while the descriptor is still blocking, which is what keeps os from
// registering it.
func openFIFO(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = f.Close() // Best effort.
		return nil, &os.PathError{Op: "set non-blocking", Path: path, Err: err}
	}
	return f, nil
}

// pollableCopy returns a second descriptor of f that the Go poller
// watches, so that a write to it waits for room without holding a thread,
// and closing it ends the wait. The descriptor is non-blocking already
// (openFIFO), which is what makes os register it.
func pollableCopy(f *os.File) (*os.File, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd, dupErr := -1, error(nil)
	if err := sc.Control(func(fd uintptr) { nfd, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, &os.PathError{Op: "dup", Path: f.Name(), Err: dupErr}
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
}
