//go:build linux || darwin

package pty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	creack "github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/rawio"
	"github.com/shellport/shellport/internal/spawnhelper"
)

func start(ctx context.Context, opts Options) (_ *Process, err error) {
	path, err := lookPath(opts.Path, opts.Env)
	if err != nil {
		return nil, err
	}
	master, tty, err := creack.Open()
	if err != nil {
		return nil, fmt.Errorf("pty: open terminal: %w", err)
	}
	// The parent never keeps the slave: once the child has it, the master
	// sees EOF exactly when the last process using the terminal lets go.
	defer func() { _ = tty.Close() }() // Best effort.
	defer func() {
		if err != nil {
			_ = master.Close() // Best effort.
		}
	}()
	if err := setupTerminal(tty, opts); err != nil {
		return nil, err
	}
	if master, err = pollable(master); err != nil {
		return nil, err
	}

	if opts.SpawnHelper != "" && supervised {
		sup, err := opts.Spares.Start(ctx, spawnhelper.Spec{
			Helper:   opts.SpawnHelper,
			Path:     path,
			Args:     append([]string{opts.Path}, opts.Args...),
			Dir:      opts.Dir,
			Env:      opts.Env,
			TTY:      tty,
			Restrict: opts.Restrict,
		})
		if err != nil {
			return nil, fmt.Errorf("pty: start %q: %w", opts.Path, err)
		}
		return newSupervised(sup, master, tty.Name(), opts.OnDone), nil
	}

	argv := append([]string{opts.Path}, opts.Args...)
	attr := &os.ProcAttr{Dir: opts.Dir, Env: opts.Env, Files: []*os.File{tty, tty, tty}, Sys: &syscall.SysProcAttr{}}
	prog := path
	if opts.SpawnHelper != "" {
		// The exec shim makes the session and the controlling terminal
		// itself from fd 3, then execs the program in DIR.
		dir := opts.Dir
		if dir == "" {
			dir = "."
		}
		prog = opts.SpawnHelper
		argv = append([]string{opts.SpawnHelper, "--argv0", opts.Path, "--", dir, path}, opts.Args...)
		attr.Dir = ""
		attr.Files = append(attr.Files, tty)
	} else {
		attr.Sys.Setsid = true
		attr.Sys.Setctty = true
		attr.Sys.Ctty = 0 // the child's fd 0, which is tty
		setParentDeath(attr.Sys)
	}
	if r := opts.Restrict; r.Landlock != nil || r.Seccomp != nil {
		return nil, fmt.Errorf("pty: start %q: a sandbox of descriptors is applied by the spawn helper's supervisor, and none is in use", opts.Path)
	}
	if w := opts.Restrict.Wrapper; len(w) > 0 {
		// The sandbox wrapper (sandbox-exec) enters the profile, then
		// execs the shim or the program in the same process.
		argv = append(append([]string{}, w...), append([]string{prog}, argv[1:]...)...)
		prog = w[0]
	}

	proc, err := spawn(ctx, prog, argv, attr)
	if err != nil {
		return nil, err
	}
	return newProcess(proc, master, tty.Name(), opts.OnDone), nil
}

// spawn starts the child from a fresh goroutine so that the creating thread
// is one the Go runtime owns for the life of the process (see the package
// documentation on the parent-death signal).
func spawn(ctx context.Context, prog string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	type result struct {
		proc *os.Process
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		proc, err := os.StartProcess(prog, argv, attr)
		ch <- result{proc, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("pty: start %q: %w", argv[0], r.err)
		}
		return r.proc, nil
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.err == nil {
				_ = r.proc.Kill() // Best effort.
				_, _ = r.proc.Wait()
			}
		}()
		return nil, ctx.Err()
	}
}

func setupTerminal(tty *os.File, opts Options) error {
	size := opts.Size
	if size.Rows == 0 || size.Cols == 0 {
		size = Winsize{Rows: 24, Cols: 80}
	}
	fd := int(tty.Fd())
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: size.Rows, Col: size.Cols}); err != nil {
		return fmt.Errorf("pty: set terminal size: %w", err)
	}
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return fmt.Errorf("pty: read terminal modes: %w", err)
	}
	if !opts.Echo {
		t.Lflag &^= unix.ECHO | unix.ECHOE | unix.ECHOK | unix.ECHONL
	}
	if !opts.CRLF {
		t.Oflag &^= unix.ONLCR
	}
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, t); err != nil {
		return fmt.Errorf("pty: set terminal modes: %w", err)
	}
	return nil
}

func (p *Process) resize(size Winsize) error {
	return p.control(func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: size.Rows, Col: size.Cols})
	})
}

// control runs f on the master's descriptor without taking it out of
// non-blocking mode (os.File.Fd would).
func (p *Process) control(f func(fd int) error) error {
	sc, err := p.master.SyscallConn()
	if err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	return ferr
}

func (p *Process) signalForeground(sig syscall.Signal) error {
	pgrp := p.foregroundGroup()
	if pgrp <= 0 {
		pgrp = p.pid
	}
	if err := unix.Kill(-pgrp, sig); err != nil {
		return fmt.Errorf("pty: signal group %d: %w", pgrp, err)
	}
	return nil
}

func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// readBufSize is ReadEach's buffer: large enough that a command's heavy
// output takes few reads. Buffers are held only while a read has data.
const readBufSize = 64 << 10

var readBufs = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}

// smallRead is the buffer a blocking ReadEach waits with (darwin): an
// idle terminal holds only that much; a read that fills it switches to a
// pooled readBufSize one for as long as reads keep filling it.
const smallRead = 4 << 10

func (p *Process) readEach(f func([]byte)) error {
	if p.raw == nil || !masterPolled {
		for {
			if err := p.readBlocking(f); err != nil {
				return err
			}
		}
	}
	r := &p.rd
	if r.read == nil {
		r.read = r.readFD
	}
	r.f, r.reaped, r.err, r.ended = f, p.reaped, nil, false
	defer func() { r.f, r.err = nil, nil }()
	for {
		// Returns at the end of file, at Close, or once at the nudge
		// (see nudgeReader), after which it reads again.
		err := p.raw.Read(r.read)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			_ = p.master.SetReadDeadline(time.Time{}) // Best effort: fails only once closed, which the next wait reports.
			continue
		}
		switch {
		case err != nil:
			return fmt.Errorf("pty: read terminal: %w", err)
		case !r.ended:
			return fmt.Errorf("pty: read terminal: %w", io.ErrUnexpectedEOF) // cannot happen: readFD returns true only at the end
		case r.err == nil || errors.Is(r.err, syscall.EIO):
			// EIO: Linux's end of file on a master whose slave side is
			// closed everywhere (see read).
			return io.EOF
		}
		return &os.PathError{Op: "read", Path: p.master.Name(), Err: r.err}
	}
}

// readFD is the poller's read callback. It runs when the master may be
// readable and reads until a read comes back short, feeding each stretch
// to r.f; then, while the program runs, it returns false, so that the
// poller waits for the master to be ready again, with no buffer held:
// the read that would find nothing (EAGAIN, which also has the kernel
// flush the terminal's pending input, now and then waiting for its
// worker) is skipped, one system call fewer per stretch of output, a
// round trip's end frame among them (issue 16). That is sound for output:
// a short read took all there was, the kernel makes the master ready
// again at each later arrival, and the poller keeps a readiness that
// comes while this reads or feeds for the next wait. It is not for the
// end of file: when the last process with the slave side open closes it
// just before the short read, that readiness was the one this callback
// was called for, and none follows. So once the program has been reaped
// every read pass ends on EAGAIN, and the reaper nudges this reader into
// one more pass (see nudgeReader); a slave side closed after that pass
// makes the master ready again. It returns true at the end of file or on
// an error.
func (r *termReader) readFD(fd uintptr) bool {
	for {
		bp := readBufs.Get().(*[]byte)
		n, err := rawio.Read(fd, *bp) // non-blocking: see package rawio
		if n > 0 {
			r.f((*bp)[:n])
		}
		full := n == len(*bp)
		readBufs.Put(bp)
		switch {
		case err == syscall.EAGAIN:
			return false
		case err != nil || n <= 0:
			r.err, r.ended = err, true
			return true
		case !full && !isClosed(r.reaped):
			return false
		}
	}
}

// nudgeReader makes a ReadEach waiting in the poller read once more
// (through a read deadline in the past, which readEach clears), so that
// it sees an end of file that came before its last short read (see
// readFD). Called once, when the program has been reaped.
func (p *Process) nudgeReader() {
	if p.raw != nil && masterPolled {
		_ = p.master.SetReadDeadline(time.Unix(1, 0)) // Best effort: fails only once closed, when no reader waits.
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// readBlocking is one read of readEach where the master is not in the poller: the read
// waits in the kernel, holding its buffer, so that buffer is small unless
// output is pouring in.
func (p *Process) readBlocking(f func([]byte)) error {
	r := &p.rd
	if r.small == nil {
		r.small = make([]byte, smallRead)
	}
	buf := r.small
	if r.large != nil {
		buf = *r.large
	}
	n, err := p.read(buf)
	if n > 0 {
		f(buf[:n])
	}
	switch {
	case err != nil || (r.large != nil && n < smallRead):
		if r.large != nil {
			readBufs.Put(r.large)
			r.large = nil
		}
	case r.large == nil && n == len(buf):
		r.large = readBufs.Get().(*[]byte)
	}
	return err
}
