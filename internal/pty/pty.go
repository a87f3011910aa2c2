// Package pty runs one program on a pseudo-terminal and manages it as a
// terminal session: read and write the terminal, resize it, signal its
// foreground process group, kill every process it started, and wait for
// the program with its exit code or signal.
//
// [Start] opens a terminal pair (creack/pty), starts the program in a new
// session with the terminal as its controlling terminal and stdin, stdout and
// stderr, and keeps only the master side. How the program is started depends
// on [Options.SpawnHelper]:
//
//   - On Linux with a helper (what the runtime always uses), the program runs
//     under its own supervisor (internal/spawnhelper): a child subreaper that
//     owns everything the program starts, even processes that leave its
//     session, and kills all of it when the program ends, when
//     [Process.KillSession] asks, or when the runtime dies (a pipe it
//     watches reaches end of file).
//   - On macOS with a helper, the helper is an exec shim that makes the
//     session and the controlling terminal and then becomes the program, so
//     that the multithreaded host is never forked.
//   - Without a helper the program is started directly (Go's own setsid and
//     TIOCSCTTY in the child), with a parent-death signal on Linux.
//
// # Lifetime
//
// [Process.Close] kills everything the program started and reaps it. Under
// a supervisor that is every process the program started; otherwise it is
// every process of the program's session, so processes that left the
// session on purpose (setsid, daemons) survive, and on macOS nothing
// survives the runtime's death only if the runtime closed its processes.
//
// A direct start on Linux gives the program a parent-death signal
// (SIGKILL). The kernel delivers it when the OS thread that created the
// child exits, not when the process exits, so Start always spawns from a
// fresh goroutine: goroutines started with go run on threads the Go runtime
// owns and never retires, whereas a call that arrived from C (the shellport
// shared library loaded into Python) runs on a foreign thread that may exit
// as soon as the call returns. A supervisor checks that its parent process
// is really gone before acting on that signal.
//
// # Reading
//
// Reading the master after every slave descriptor has closed fails with EIO
// on Linux; Read reports that as io.EOF. A reader blocked in Read when Close
// runs returns: on Linux the master is non-blocking and registered with the
// Go poller, so closing it wakes the reader; on darwin the master stays in
// blocking mode (kqueue does not support terminal devices) and the reader
// wakes when the killed session releases the slave.
package pty

import (
	"context"
	"os"
	"sync"
	"syscall"

	"github.com/shellport/shellport/internal/spawnhelper"
)

// Winsize is a terminal size in character cells.
type Winsize struct {
	Rows uint16
	Cols uint16
}

// Options describe the program to start.
type Options struct {
	// Path is the program to run. A name without a slash is searched in the
	// PATH of Env (or of the runtime when Env is nil).
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory; empty means the runtime's.
	Dir string
	// Env is the complete environment; nil means the runtime's.
	Env []string
	// Size is the initial terminal size; zero means 80×24.
	Size Winsize
	// Echo keeps the terminal's input echo, and CRLF its translation of
	// "\n" to "\r\n" on output. A fresh terminal has both; a program driver
	// usually wants neither, so both are off unless set.
	Echo bool
	CRLF bool
	// SpawnHelper, when set, is the path of shellport-spawn-helper: the
	// program then runs under a supervisor (Linux) or is started through
	// the exec shim (macOS) instead of directly.
	SpawnHelper string
	// OnDone, when set, runs once the program has ended and been reaped,
	// just after Done is closed, on the goroutine that reaped it: a hook
	// for a waiter parked somewhere Done cannot reach (it must not block).
	OnDone func()
	// Restrict is the sandbox the program runs in: applied by its
	// supervisor just before exec (Linux, which needs SpawnHelper), or the
	// wrapper command the program (or the exec shim) runs under (macOS).
	Restrict spawnhelper.Restrictions
	// Spares, when set, is where the supervisor comes from: a spare
	// started ahead of need when one is ready (see spawnhelper.Spares).
	// Nil: the supervisor is exec'd for this start.
	Spares *spawnhelper.Spares
}

// ExitStatus is how a program ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when the program was killed by a signal
	// or its status could not be collected.
	Code int
	// Signal is the signal that killed the program, or 0.
	Signal syscall.Signal
}

// Known reports whether the status was collected at all. It is false when
// the host reaps children itself (SIGCHLD ignored), so the code is lost.
func (s ExitStatus) Known() bool { return s.Code >= 0 || s.Signal != 0 }

// SignalName returns the signal's name ("SIGKILL"), or "" when the program
// was not killed by a signal.
func (s ExitStatus) SignalName() string {
	if s.Signal == 0 {
		return ""
	}
	return signalName(s.Signal)
}

// Process is a program running on a terminal. Its methods are safe for
// concurrent use.
type Process struct {
	pid     int
	ttyName string
	master  *os.File
	raw     syscall.RawConn // master's, for ReadEach; nil if it has none
	rd      termReader      // ReadEach's state, kept so that a read allocates nothing
	reaped  chan struct{}   // closed once the program has been waited for
	onDone  func()          // Options.OnDone
	status  ExitStatus
	sup     *spawnhelper.Process // the program's supervisor, or nil

	closeOnce sync.Once
	err       error // Close's result, set inside closeOnce
}

// Start starts a program on a new terminal. ctx bounds the start only; the
// program outlives it.
func Start(ctx context.Context, opts Options) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return start(ctx, opts)
}

// Pid is the program's process id, which is also its session id. Under a
// supervisor it is the program's, not the supervisor's.
func (p *Process) Pid() int { return p.pid }

// TTY is the path of the terminal's slave side ("/dev/pts/3").
func (p *Process) TTY() string { return p.ttyName }

// Read reads what the program wrote to the terminal. It returns io.EOF once
// no process has the terminal open any more, and an error wrapping
// os.ErrClosed after Close.
func (p *Process) Read(b []byte) (int, error) { return p.read(b) }

// ReadEach calls f with the terminal's output as it arrives, each stretch
// read into a buffer lent from a pool shared by every terminal (f must
// not keep the slice), until no process has the terminal open any more
// (io.EOF) or Close (another error). Where the master is in the Go poller
// (Linux), no buffer is held while waiting, so thousands of idle
// terminals hold none (issue 16), and a read that came back short is
// followed by a wait, not by another read: the terminal had nothing more
// then, and whatever it gets later makes it ready again. f runs on the
// reading goroutine between reads; it must not wait for Close. One
// goroutine at a time may call ReadEach.
func (p *Process) ReadEach(f func([]byte)) error { return p.readEach(f) }

// termReader is ReadEach's state: the function it feeds and how reading
// ended, or, where the master is not in the poller, the buffers a
// blocking read waits with.
type termReader struct {
	f      func([]byte)
	reaped <-chan struct{}       // the Process's: closed once its program was reaped
	err    error                 // the read error that ended ReadEach
	ended  bool                  // the terminal's end of file (or err) was read
	read   func(fd uintptr) bool // readFD, bound once

	small []byte  // a blocking read's own buffer
	large *[]byte // lent while reads keep filling small
}

// Write writes to the terminal as if typed.
func (p *Process) Write(b []byte) (int, error) { return p.master.Write(b) }

// Resize sets the terminal size; the foreground process gets SIGWINCH.
func (p *Process) Resize(size Winsize) error { return p.resize(size) }

// SignalForeground sends sig to the terminal's foreground process group,
// falling back to the program's own group when the terminal has none.
func (p *Process) SignalForeground(sig syscall.Signal) error { return p.signalForeground(sig) }

// KillSession kills the program and what it started, and returns once they
// are gone: under a supervisor, every process the program started, in any
// session, and the program has then been reaped; otherwise every process
// whose session is the program's, until none is left.
func (p *Process) KillSession() error { return p.killSession() }

// Lost reports whether the program's supervisor was itself killed (a
// command that ran kill -9 on its parent), so that processes which had
// left the program's session may have survived. Valid once Done is closed.
func (p *Process) Lost() bool { return p.sup != nil && p.sup.Lost() }

// WaitingForInput reports whether a process of the foreground group is
// blocked reading the terminal. It is a best-effort probe: false when the
// platform cannot tell.
func (p *Process) WaitingForInput() bool { return p.waitingForInput() }

// Done is closed once the program has ended and been reaped (under a
// supervisor: once everything it started is gone too).
func (p *Process) Done() <-chan struct{} { return p.reaped }

// Wait waits for the program to end, or for ctx.
func (p *Process) Wait(ctx context.Context) (ExitStatus, error) {
	select {
	case <-p.reaped:
		return p.status, nil
	case <-ctx.Done():
		return ExitStatus{Code: -1}, ctx.Err()
	}
}

// Close kills the session, reaps the program and closes the terminal. It is
// idempotent and returns within a few seconds whatever the processes do.
func (p *Process) Close() error { return p.close() }
