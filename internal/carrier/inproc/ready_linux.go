//go:build linux

package inproc

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// newReadiness makes an eventfd: one descriptor, one counter.
func newReadiness() (*readiness, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return &readiness{readFD: fd, writeFD: fd}, nil
}

// one is 1 as an eventfd counts: a native-endian uint64.
var one = binary.NativeEndian.AppendUint64(nil, 1)

func (r *readiness) signal() {
	_, _ = unix.Write(r.writeFD, one) // cannot fail short of a counter overflow, which set's guard prevents
}

func (r *readiness) drain() {
	var buf [8]byte
	_, _ = unix.Read(r.readFD, buf[:]) // resets the counter; EAGAIN only if it was zero already
}

func (r *readiness) release() { _ = unix.Close(r.readFD) }
