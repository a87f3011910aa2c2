//go:build unix && !linux

package inproc

import "golang.org/x/sys/unix"

// newReadiness makes a non-blocking, close-on-exec pipe holding at most one
// byte: readable while that byte is in it.
func newReadiness() (*readiness, error) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return nil, err
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			_ = unix.Close(p[0])
			_ = unix.Close(p[1])
			return nil, err
		}
	}
	return &readiness{readFD: p[0], writeFD: p[1]}, nil
}

func (r *readiness) signal() {
	_, _ = unix.Write(r.writeFD, []byte{1})
}

func (r *readiness) drain() {
	var buf [64]byte
	for {
		if n, err := unix.Read(r.readFD, buf[:]); n <= 0 || err != nil {
			return
		}
	}
}

func (r *readiness) release() {
	_ = unix.Close(r.readFD)
	_ = unix.Close(r.writeFD)
}
