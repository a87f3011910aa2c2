//go:build linux

package stdio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"

	"github.com/shellport/shellport/internal/rawio"
	"golang.org/x/sys/unix"
)

// reopenPipe returns a new open file description of the pipe or FIFO f
// reads or writes (flag is O_RDONLY or O_WRONLY), non-blocking and in the
// Go poller, or nil when f is not a pipe or cannot be reopened (no /proc,
// a pipe of another user, a FIFO with no reader left).
//
// Why (issue 16): the standard streams a host hands the executable are
// usually blocking pipes, which Go reads and writes as blocking system
// calls. A thread blocked in read(2) on stdin keeps the runtime's monitor
// thread (sysmon) polling every 20 µs or more, and that thread hands the
// reader's P to another thread; its return wakes a thread again; and every
// read and write through package syscall wakes sysmon from its deep sleep.
// Setting O_NONBLOCK on the streams themselves would change the description
// the host shares (its own reads and writes would start failing with
// EAGAIN), so the pipe is opened anew through /proc/self/fd: the same pipe,
// a description of this process's own. Reads and writes on it are raw
// system calls (package rawio), and a goroutine waits for the pipe in the
// poller, holding no thread.
func reopenPipe(f *os.File, flag int) *os.File {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	var st unix.Stat_t
	// Control, not Fd: Fd would put the shared description into blocking
	// mode.
	_ = sc.Control(func(p uintptr) {
		if unix.Fstat(int(p), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
			fd = int(p)
		}
	})
	if fd < 0 {
		return nil
	}
	own, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), flag|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	// The same pipe, or nothing: /proc could name something else if fd
	// were closed and reused meanwhile.
	var ownSt unix.Stat_t
	if ownConn, err := own.SyscallConn(); err != nil || ownConn.Control(func(p uintptr) {
		if unix.Fstat(int(p), &ownSt) != nil {
			ownSt = unix.Stat_t{}
		}
	}) != nil || ownSt.Dev != st.Dev || ownSt.Ino != st.Ino {
		_ = own.Close() // Best effort.
		return nil
	}
	return own
}

// pipeReader reads a pipe reopened by reopenPipe: one raw read(2) per Read,
// parked in the poller while the pipe is empty.
type pipeReader struct {
	f     *os.File
	rc    syscall.RawConn
	buf   []byte
	n     int
	err   error
	tries int                // readOnce's calls in this Read: more than one means it waited
	read  func(uintptr) bool // readOnce, bound once so that a Read allocates nothing
	// waited is set when a Read waited in the poller, and cleared by
	// Waited.
	waited bool
}

func newPipeReader(f *os.File) (*pipeReader, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	r := &pipeReader{f: f, rc: rc}
	r.read = r.readOnce
	return r, nil
}

// Read reads what the pipe holds, up to len(p) bytes, waiting for some if
// it is empty; io.EOF once every writer closed it. One goroutine at a time.
func (r *pipeReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.buf, r.n, r.err, r.tries = p, 0, nil, 0
	err := r.rc.Read(r.read)
	r.buf = nil
	if r.tries > 1 {
		r.waited = true
	}
	switch {
	case err != nil: // closed
		return 0, err
	case r.err != nil:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: r.err}
	case r.n == 0:
		return 0, io.EOF
	}
	return r.n, nil
}

// readOnce is Read's callback for rc.Read: false parks the reader until
// the pipe is readable.
func (r *pipeReader) readOnce(fd uintptr) bool {
	r.tries++
	r.n, r.err = rawio.Read(fd, r.buf)
	return !errors.Is(r.err, syscall.EAGAIN)
}

// Waited reports whether a Read waited in the poller since the last call.
// Call it from the goroutine that reads.
func (r *pipeReader) Waited() bool {
	w := r.waited
	r.waited = false
	return w
}

// Close ends a Read waiting for input (it returns os.ErrClosed).
func (r *pipeReader) Close() error { return r.f.Close() }

// pipeWriter writes a pipe reopened by reopenPipe with raw write(2)s,
// parked in the poller while the pipe is full: a host that reads slowly
// still holds the writer back.
type pipeWriter struct {
	f     *os.File
	rc    syscall.RawConn
	msg   []byte
	n     int
	err   error
	write func(uintptr) bool // writeSome, bound once
}

func newPipeWriter(f *os.File) (*pipeWriter, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	w := &pipeWriter{f: f, rc: rc}
	w.write = w.writeSome
	return w, nil
}

// Write writes all of p, or fails. One goroutine at a time (the
// FrameWriter that owns it serializes its callers).
func (w *pipeWriter) Write(p []byte) (int, error) {
	w.msg, w.n, w.err = p, 0, nil
	err := w.rc.Write(w.write)
	w.msg = nil
	switch {
	case err != nil: // closed
		return w.n, err
	case w.err != nil:
		return w.n, &os.PathError{Op: "write", Path: w.f.Name(), Err: w.err}
	}
	return w.n, nil
}

// writeSome is Write's callback for rc.Write: it writes until the message
// is out or the pipe is full (false: wait until it is writable).
func (w *pipeWriter) writeSome(fd uintptr) bool {
	for w.n < len(w.msg) {
		n, err := rawio.Write(fd, w.msg[w.n:])
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return false
		case err != nil:
			w.err = err
			return true
		case n == 0:
			w.err = fmt.Errorf("write wrote nothing")
			return true
		}
		w.n += n
	}
	return true
}

// Close makes later Writes fail with os.ErrClosed.
func (w *pipeWriter) Close() error { return w.f.Close() }

// pollStreams returns in and out reopened by reopenPipe where they are
// pipes, else as they are, in's reader when it was reopened (its reads
// then wait in the poller), and the function that closes what it opened.
func pollStreams(in io.Reader, out io.Writer) (_ io.Reader, _ io.Writer, polled waitReporter, closeAll func()) {
	var closers []io.Closer
	if f, ok := in.(*os.File); ok {
		if own := reopenPipe(f, os.O_RDONLY); own != nil {
			if r, err := newPipeReader(own); err == nil {
				in, polled, closers = r, r, append(closers, r)
			} else {
				_ = own.Close() // Best effort.
			}
		}
	}
	if f, ok := out.(*os.File); ok {
		if own := reopenPipe(f, os.O_WRONLY); own != nil {
			if w, err := newPipeWriter(own); err == nil {
				out, closers = w, append(closers, w)
			} else {
				_ = own.Close() // Best effort.
			}
		}
	}
	return in, out, polled, func() {
		for _, c := range closers {
			_ = c.Close() // Best effort.
		}
	}
}
