//go:build linux

package spawnhelper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Spec is one program to start under a supervisor.
type Spec struct {
	// Helper is the path of shellport-spawn-helper.
	Helper string
	// Path is the program: a path, or a name the helper searches in the
	// PATH of Env.
	Path string
	// Args are the program's arguments; Args[0] is its argv[0].
	Args []string
	// Dir is the working directory; empty means the runtime's.
	Dir string
	// Env is the complete environment; nil means the runtime's.
	Env []string
	// Stdin, Stdout and Stderr are the program's fds 0-2 (nil: /dev/null).
	// They are ignored when TTY is set.
	Stdin, Stdout, Stderr *os.File
	// TTY is a terminal's slave side: the program leads a new session with
	// it as controlling terminal and fds 0-2.
	TTY *os.File
	// FD3 is given to the program as its fd 3. Nothing else above 2 is.
	FD3 *os.File
	// Restrict is applied in the program's process just before exec: a
	// Landlock ruleset and a seccomp program (the sandbox). A restriction
	// the kernel refuses fails the start; the program never runs without
	// it. Wrapper is macOS's and is refused here.
	Restrict Restrictions
}

// Process is a program running under its supervisor.
type Process struct {
	pid    int // the program's
	helper *child

	reportMu sync.Mutex    // the exit watcher's and Wait's reads of report
	report   *os.File      // blocking; the exit watcher reads it non-blocking
	early    []byte        // report bytes read past the first line, or by the watcher
	drained  bool          // report reached end of file: the supervisor is gone
	watched  chan struct{} // closed when the exit watcher has drained report (OnExit)

	waitOnce sync.Once
	state    *os.ProcessState
	err      error
	lost     bool
}

// StartError is a program the supervisor could not start: Op is the step
// that failed ("exec", "chdir", …) and Err its errno.
type StartError struct {
	Op   string
	Path string // the program, or the directory for "chdir"
	Err  error
}

func (e *StartError) Error() string {
	switch e.Op {
	case "exec", "notfound":
		return "fork/exec " + e.Path + ": " + e.Err.Error()
	case "chdir":
		return "chdir " + e.Path + ": " + e.Err.Error()
	}
	return "spawn helper: " + e.Op + ": " + e.Err.Error()
}

func (e *StartError) Unwrap() error { return e.Err }

// fd numbers the helper gets its descriptors at (after 0-2). A
// supervisor gets nothing at fdLife: the runtime's end of its report pipe
// tells it the runtime is gone (see Start); the spawner gets the life
// pipe there.
const (
	fdLife   = 3
	fdReport = 4
	fdSpec   = 5
)

// specFile is a memfd holding s as a spec without descriptors, which the
// supervisor reads (--spec) rather than taking the program's strings from
// its command line and environment: those stay in its stack for its whole
// life, and a persistent shell's (the boot line and the environment) took
// two or three of its pages; the spec's are unmapped once the program is
// exec'd (issue 16). A string with a NUL fails as exec fails it.
func specFile(s Spec) (*os.File, error) {
	msg, ok := layoutSpec(s, 0, sweepScanAll.Load())
	if !ok {
		return nil, &os.PathError{Op: "fork/exec", Path: s.Path, Err: syscall.EINVAL}
	}
	fd, err := unix.MemfdCreate("shellport-spec", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("spawn helper: spec file: %w", err)
	}
	f := os.NewFile(uintptr(fd), "|spec")
	if _, err := f.Write(msg); err != nil {
		_ = f.Close() // Best effort.
		return nil, fmt.Errorf("spawn helper: write spec: %w", err)
	}
	return f, nil
}

// sweepScanAll makes new supervisors find the processes to kill by scanning
// all of /proc (--sweep-scan-all), the way they do on a kernel without
// /proc/PID/task/TID/children. Only tests set it (export_test.go), so that
// both ways of finding a session's processes are proven to kill them all.
var sweepScanAll atomic.Bool

// Start starts s.Path under a new supervisor and returns once the program
// has been exec'd. ctx bounds the start only.
func Start(ctx context.Context, s Spec) (_ *Process, err error) {
	if len(s.Args) == 0 {
		s.Args = []string{s.Path}
	}
	if len(s.Restrict.Wrapper) > 0 {
		return nil, fmt.Errorf("spawn helper: a wrapper command (%s) is not how this platform's sandbox is applied", s.Restrict.Wrapper[0])
	}
	// A blocking pipe: the read of the first report line blocks its
	// thread, as a wait for a child does, rather than parking on the
	// poller, which costs the start milliseconds on a busy machine.
	var rp [2]int
	if err := unix.Pipe2(rp[:], unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("spawn helper: report pipe: %w", err)
	}
	rr, rw := os.NewFile(uintptr(rp[0]), "|report"), os.NewFile(uintptr(rp[1]), "|report")
	defer func() {
		if err != nil {
			_ = rr.Close() // Best effort.
		}
	}()

	spec, err := specFile(s)
	if err != nil {
		_ = rw.Close() // Best effort.
		return nil, fmt.Errorf("start spawn helper %s: %w", s.Helper, err)
	}
	defer spec.Close()
	// No life pipe: this process holds the report pipe's read end until
	// the supervisor's end (see OnExit and Wait), so its death, however
	// it dies, closes that too, and the supervisor, which watches its
	// write end, kills everything. A live session's supervisor so holds
	// one descriptor, not two (issue 16).
	files := []*os.File{s.Stdin, s.Stdout, s.Stderr, nil, rw, spec}
	argv := []string{s.Helper, "--supervise", "--report", strconv.Itoa(fdReport),
		"--parent", strconv.Itoa(os.Getpid()), "--spec", strconv.Itoa(fdSpec)}
	if s.TTY != nil {
		files[0], files[1], files[2] = s.TTY, s.TTY, s.TTY
		argv = append(argv, "--tty", strconv.Itoa(len(files)))
		files = append(files, s.TTY)
	}
	if s.FD3 != nil {
		argv = append(argv, "--fd3", strconv.Itoa(len(files)))
		files = append(files, s.FD3)
	}
	if s.Restrict.Landlock != nil {
		argv = append(argv, "--landlock-ruleset", strconv.Itoa(len(files)))
		files = append(files, s.Restrict.Landlock)
	}
	if s.Restrict.Seccomp != nil {
		argv = append(argv, "--seccomp-filter", strconv.Itoa(len(files)))
		files = append(files, s.Restrict.Seccomp)
	}
	for i, f := range files[:3] {
		if f == nil {
			files[i] = devNull()
		}
	}

	// The helper's own environment is empty: the program's is in the spec.
	helper, err := startChild(s.Helper, argv, []string{}, files)
	_ = rw.Close() // Best effort: the helper holds its own copy.
	if err != nil {
		return nil, fmt.Errorf("start spawn helper %s: %w", s.Helper, err)
	}
	// Abandoning the start ends the supervisor, which closes the pipe.
	stop := context.AfterFunc(ctx, func() { _ = helper.Signal(syscall.SIGKILL) })
	return started(ctx, stop, helper, rr, s)
}

// started waits for the first report of a supervisor that was given s
// (exec'd with it, or a spare sent it): the program's pid, or why it could
// not start it. stop undoes the kill that ctx's end arms.
func started(ctx context.Context, stop func() bool, helper *child, rr *os.File, s Spec) (*Process, error) {
	p := &Process{helper: helper, report: rr}
	line, early, rerr := readLine(rr)
	p.early = early
	if !stop() {
		// Killed while starting: what the program may have started went
		// with its session (it dies of its parent-death signal).
		rerr = ctx.Err()
		if f := strings.Fields(line); len(f) == 2 && f[0] == "pid" {
			if pid, err := strconv.Atoi(f[1]); err == nil && pid > 1 {
				_ = killSession(pid) // Best effort.
			}
		}
	}
	if f := strings.Fields(line); rerr == nil && len(f) == 2 && f[0] == "pid" {
		if pid, err := strconv.Atoi(f[1]); err == nil && pid > 0 {
			p.pid = pid
			return p, nil
		}
	}
	// No program: the supervisor has exited or is about to.
	st, _ := helper.Wait()
	_ = rr.Close() // Best effort.
	if rerr != nil {
		return nil, rerr
	}
	if f := strings.Fields(line); len(f) == 3 && f[0] == "error" {
		n, _ := strconv.Atoi(f[2])
		e := &StartError{Op: f[1], Path: s.Path, Err: syscall.Errno(n)}
		if e.Op == "chdir" {
			e.Path = s.Dir
		}
		return nil, e
	}
	return nil, fmt.Errorf("spawn helper %s ended without starting %s (%v)", s.Helper, s.Path, st)
}

// readLine reads the supervisor's first report line, or what it wrote
// before it died. rest is what the same reads got past the line: a
// program that ends at once has its supervisor's "end" follow the pid
// before the first read, and Wait must still find it.
func readLine(r *os.File) (line string, rest []byte, _ error) {
	var buf []byte
	b := make([]byte, 64)
	for {
		n, err := r.Read(b)
		buf = append(buf, b[:n]...)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			return string(buf[:i]), buf[i+1:], nil
		}
		if err != nil {
			return string(buf), nil, nil // end of file: the supervisor died
		}
	}
}

// drain reads the report pipe to its end; p.reportMu is held.
func (p *Process) drain() {
	if p.drained {
		return
	}
	// A small buffer on the stack, not io.ReadAll's: a live persistent
	// session waits here for its whole life, and the report is a line or
	// two (io.ReadAll's 512 bytes were a twentieth of a live session's
	// heap, issue 16).
	var buf [64]byte
	for {
		n, err := p.report.Read(buf[:])
		p.early = append(p.early, buf[:n]...)
		if err != nil {
			break
		}
	}
	p.drained = true
	_ = p.report.Close() // Best effort.
}

// Pid is the program's process id: the leader of its session and process
// group.
func (p *Process) Pid() int { return p.pid }

// SupervisorPid is the supervisor's process id.
func (p *Process) SupervisorPid() int { return p.helper.Pid }

// KillAll asks the supervisor to kill the program and everything it
// started. Everything is dead once Wait returns. A SIGCONT follows the
// SIGTERM: a command may have stopped its supervisor (kill -STOP $PPID).
func (p *Process) KillAll() error {
	err := p.helper.Signal(syscall.SIGTERM)
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("spawn helper: signal supervisor %d: %w", p.helper.Pid, err)
	}
	_ = p.helper.Signal(syscall.SIGCONT) // Best effort: it may have ended.
	return nil
}

// Wait waits for the supervisor, whose status is the program's (the same
// exit code, or the same signal). Call it from one goroutine; later calls
// return the first result.
//
// A supervisor that ends without its final report was killed itself (a
// command that ran kill -9 on its parent): Lost then reports true, and
// Wait has killed what it could still find, the processes of the
// program's session. Processes that had left that session are out of
// reach; in a sandboxed session (Landlock's signal scope, ABI 6 and later)
// a command cannot signal its supervisor at all.
func (p *Process) Wait() (*os.ProcessState, error) {
	p.waitOnce.Do(func() {
		p.state, p.err = p.helper.Wait()
		// The supervisor is gone, so everything it wrote is in the pipe,
		// and no one else holds its write end. A watched pipe is the
		// exit watcher's to read to its end.
		if p.watched != nil {
			<-p.watched
		}
		p.reportMu.Lock()
		p.drain()
		rest := p.early
		p.reportMu.Unlock()
		if !bytes.Contains(rest, []byte("end\n")) {
			p.lost = true
			_ = killSession(p.pid) // Best effort.
		}
	})
	return p.state, p.err
}

// Lost reports whether the supervisor was killed before it could finish
// its work; valid after Wait.
func (p *Process) Lost() bool { return p.lost }

var life struct {
	once sync.Once
	r, w *os.File // w stays open for the life of the process
	err  error
}

// lifeReadEnd returns the read end of this process's life pipe, created on
// first use. Only this process holds the write end (close-on-exec, never
// written), so the pipe reaches end of file in every supervisor exactly
// when this process is gone.
func lifeReadEnd() (*os.File, error) {
	life.once.Do(func() {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			life.err = fmt.Errorf("spawn helper: life pipe: %w", err)
			return
		}
		life.r = os.NewFile(uintptr(p[0]), "shellport-life")
		life.w = os.NewFile(uintptr(p[1]), "shellport-life")
	})
	return life.r, life.err
}

var null struct {
	once sync.Once
	f    *os.File
}

// devNull is /dev/null for a program's unset standard descriptors, opened
// once; nil (a closed descriptor) if it cannot be.
func devNull() *os.File {
	null.once.Do(func() {
		null.f, _ = os.OpenFile(os.DevNull, os.O_RDWR, 0)
	})
	return null.f
}
