//go:build linux

package spawnhelper

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Spares keeps one supervisor started ahead of need (issue 16): exec'ing
// the helper, the kernel's work of one more process image, is off the
// spawn's path, which only sends the spare what this spawn decides (the
// program, its arguments, environment and directory, its descriptors) over
// a unix socket, the descriptors as SCM_RIGHTS. A spare is contained like
// every supervisor from its start (its report pipe, its parent-death signal)
// and, once claimed, is exactly the supervisor [Start] would have started.
// One that is never claimed is killed by Close. A nil *Spares starts
// every program with [Start].
//
// Spares are forked by the pool's spawner (see [spawner]), exec'd at the
// pool's first start, so that a spare's cost does not grow with the
// descriptors this process holds; without one, each spare is exec'd from
// here. A start that finds no spare ready has one forked for it at once.
type Spares struct {
	helper string

	mu     sync.Mutex
	idle   *spare
	filled chan struct{} // closed when the refill under way ends; nil when none is
	closed bool
	fills  sync.WaitGroup

	spawnMu    sync.Mutex // held while the spawner is started, asked or stopped
	spawner    *spawner
	spawnerOff bool         // it could not be started, broke, or the pool closed: spares are exec'd
	spawnerPid atomic.Int64 // spawner's pid while it runs, for SpawnerPid
}

// spare is a supervisor waiting for its spec.
type spare struct {
	proc   *child
	report *os.File // the read end of its report pipe
	sock   int      // this side of the spec socket
}

// NewSpares returns a pool of spares of helper. It starts none: the first
// Start through it does, after its own program has started.
func NewSpares(helper string) *Spares { return &Spares{helper: helper} }

// Start starts s.Path under a supervisor like [Start], through the spare
// when one is ready (then refilled in the background). A spec a spare
// cannot take (no Dir: the runtime's directory is read when the helper
// starts; another helper), or a spare that cannot take it, goes through
// [Start].
func (p *Spares) Start(ctx context.Context, s Spec) (*Process, error) {
	if p == nil || s.Helper != p.helper || s.Dir == "" || len(s.Restrict.Wrapper) > 0 {
		return Start(ctx, s)
	}
	if len(s.Args) == 0 {
		s.Args = []string{s.Path}
	}
	defer p.refill()
	sp := p.claim(ctx)
	if sp == nil {
		return Start(ctx, s)
	}
	proc, err, sent := sp.start(ctx, s)
	if !sent {
		return Start(ctx, s)
	}
	return proc, err
}

// Close kills the spare not claimed yet and waits for a refill under way:
// once it returns no spare of p is left. Later Starts go through [Start].
func (p *Spares) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	sp := p.idle
	p.idle = nil
	p.mu.Unlock()
	p.fills.Wait()
	if sp != nil {
		sp.discard()
	}
	p.spawnMu.Lock()
	p.stopSpawner()
	p.spawnMu.Unlock()
}

// SparePid is the pid of the spare ready to be claimed, or 0.
func (p *Spares) SparePid() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle == nil {
		return 0
	}
	return p.idle.proc.Pid
}

// claim takes the spare that is ready, or has the spawner fork one now
// (many starts at once each get their own), or, without a spawner, waits
// for the one being started: its exec began before this spawn came, so
// it is ready sooner than a supervisor exec'd now would be. nil: none
// (another spawn took it, or it could not be started).
func (p *Spares) claim(ctx context.Context) *spare {
	p.mu.Lock()
	sp, filled, closed := p.idle, p.filled, p.closed
	p.idle = nil
	p.mu.Unlock()
	if sp != nil || closed {
		return sp
	}
	if sp := p.fork(); sp != nil {
		return sp
	}
	if filled == nil {
		return nil
	}
	select {
	case <-filled:
	case <-ctx.Done():
		return nil
	}
	p.mu.Lock()
	sp = p.idle
	p.idle = nil
	p.mu.Unlock()
	return sp
}

// refill starts a spare in the background unless one is ready or coming.
func (p *Spares) refill() {
	p.mu.Lock()
	if p.closed || p.idle != nil || p.filled != nil {
		p.mu.Unlock()
		return
	}
	filled := make(chan struct{})
	p.filled = filled
	p.fills.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.fills.Done()
		sp, err := p.newSpare()
		p.mu.Lock()
		p.filled = nil
		if err == nil && !p.closed {
			p.idle, sp = sp, nil
		}
		p.mu.Unlock()
		close(filled)
		if sp != nil {
			sp.discard()
		}
	}()
}

// newSpare makes a spare through the spawner, or execs one when there is
// no spawner or it failed.
func (p *Spares) newSpare() (*spare, error) {
	if sp := p.fork(); sp != nil {
		return sp, nil
	}
	return startSpare(p.helper)
}

// fork makes a spare through the spawner, starting it the first time; nil
// when there is no spawner to use, or it could not fork one.
func (p *Spares) fork() *spare {
	p.spawnMu.Lock()
	defer p.spawnMu.Unlock()
	if p.spawner == nil && !p.spawnerOff {
		s, err := startSpawner(p.helper)
		p.spawner, p.spawnerOff = s, err != nil
		if s != nil {
			p.spawnerPid.Store(int64(s.proc.Pid))
		}
	}
	if p.spawner == nil {
		return nil
	}
	sp, err := p.spawner.spare()
	if errors.Is(err, errSpawnerBroken) || refused(err) {
		p.stopSpawner()
	}
	return sp
}

// refused reports whether err says the spawner's fork can never work
// here (a seccomp filter refusing CLONE_PARENT, say), rather than that it
// failed this time (out of processes or memory).
func refused(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS)
}

// stopSpawner stops the spawner for good; spawnMu is held.
func (p *Spares) stopSpawner() {
	p.spawnerOff = true
	if p.spawner != nil {
		p.spawner.stop()
		p.spawner = nil
		p.spawnerPid.Store(0)
	}
}

// SpawnerPid is the pid of the pool's spawner, or 0 when it has none.
func (p *Spares) SpawnerPid() int {
	if p == nil {
		return 0
	}
	return int(p.spawnerPid.Load())
}

// fdSpare is the number the spare gets the spec socket at (after the
// report pipe; nothing at fdLife).
const fdSpare = 5

// sendTimeout bounds the sending of a spec to a spare that does not read
// it (stopped by someone): the spare is then dropped for [Start]; and a
// spawner's answer (see [spawner]).
const sendTimeout = 5 * time.Second

// helperLink is what a spare and the spawner start with: /dev/null for
// their standard descriptors, and a socket pair whose far end (theirs) the
// helper gets, to be closed once it has its copy, and whose near end has
// send and receive timeouts as a hang guard.
type helperLink struct {
	null, theirs *os.File
	mine         int
}

func newHelperLink(what string) (*helperLink, error) {
	null := devNull()
	if null == nil {
		return nil, fmt.Errorf("spawn helper: %s: no /dev/null", what)
	}
	sv, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("spawn helper: %s socket: %w", what, err)
	}
	tv := unix.NsecToTimeval(sendTimeout.Nanoseconds())
	_ = unix.SetsockoptTimeval(sv[0], unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv) // Best effort: a hang guard.
	_ = unix.SetsockoptTimeval(sv[0], unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv) // Best effort: a hang guard.
	return &helperLink{null: null, theirs: os.NewFile(uintptr(sv[1]), "|"+what), mine: sv[0]}, nil
}

// startSpare execs a spare: the supervisor's own set-up done, it waits for
// a spec on the socket (--spare). Its standard descriptors are /dev/null,
// its environment empty (the program's comes with the spec).
func startSpare(helper string) (*spare, error) {
	l, err := newHelperLink("spare")
	if err != nil {
		return nil, err
	}
	defer l.theirs.Close()
	var rp [2]int
	if err := unix.Pipe2(rp[:], unix.O_CLOEXEC); err != nil {
		_ = unix.Close(l.mine)
		return nil, fmt.Errorf("spawn helper: report pipe: %w", err)
	}
	rr, rw := os.NewFile(uintptr(rp[0]), "|report"), os.NewFile(uintptr(rp[1]), "|report")
	defer rw.Close()
	// No life pipe, as for Start: the report pipe's read end is held here
	// until the spare's end (see discard).
	argv := []string{helper, "--supervise", "--report", strconv.Itoa(fdReport),
		"--parent", strconv.Itoa(os.Getpid()), "--spare", strconv.Itoa(fdSpare)}
	proc, err := startChild(helper, argv, []string{}, []*os.File{l.null, l.null, l.null, nil, rw, l.theirs})
	if err != nil {
		_ = unix.Close(l.mine)
		_ = rr.Close()
		return nil, fmt.Errorf("start spawn helper %s: %w", helper, err)
	}
	return &spare{proc: proc, report: rr, sock: l.mine}, nil
}

// sparesInUse: see UseSpares.
var sparesInUse atomic.Bool

// UseSpares says that this process's umask, user, groups and resource
// limits do not change while it runs, so that a supervisor exec'd ahead of
// need starts its program as one exec'd for it would. The shellport
// executable says so: its process is the runtime's own, and the runtime
// changes none of them. A library host may change them between calls, so
// there every supervisor is exec'd for its program. A claim that compares
// them exactly (the calling thread's /proc status and cgroup files and 16
// prlimit calls, against the same read from the spare) was built and
// measured during issue 16: the check costs 35 to 75 µs, but calls made
// back to back on two busy cores gained nothing from the spare (its exec
// competes with the command, and the socket and spec add CPU), so it was
// not kept.
func UseSpares() { sparesInUse.Store(true) }

// SparesInUse reports whether UseSpares was called.
func SparesInUse() bool { return sparesInUse.Load() }

// start sends s to the spare and waits for its report, as [Start] waits
// for a supervisor it exec'd. sent is false when the spare did not get s
// (it was gone, or s is not one a spec can carry): it has been discarded
// and nothing was started.
func (sp *spare) start(ctx context.Context, s Spec) (_ *Process, _ error, sent bool) {
	msg, files, ok := encodeSpec(s, sweepScanAll.Load())
	if !ok {
		sp.discard()
		return nil, nil, false
	}
	rights := make([]int, len(files))
	for i, f := range files {
		rights[i] = int(f.Fd())
	}
	stop := context.AfterFunc(ctx, func() { _ = sp.proc.Signal(syscall.SIGKILL) })
	err := sendAll(sp.sock, msg, unix.UnixRights(rights...))
	// The descriptors stay open until sent; the spare holds its own now.
	runtime.KeepAlive(files)
	_ = unix.Close(sp.sock) // Best effort: the spec is whole or the spare gone.
	sp.sock = -1
	if err != nil {
		// Gone, stopped, or killed by ctx's end: nothing was started.
		cancelled := !stop()
		sp.discard()
		if cancelled {
			return nil, ctx.Err(), true
		}
		return nil, nil, false
	}
	p, err := started(ctx, stop, sp.proc, sp.report, s)
	return p, err, true
}

// sendAll sends msg with the descriptors on its first byte. A send
// interrupted before it sent anything is retried (a socket with a send
// timeout is not restarted after a signal).
func sendAll(sock int, msg, oob []byte) error {
	for len(msg) > 0 {
		n, err := unix.SendmsgN(sock, msg, oob, nil, unix.MSG_NOSIGNAL)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("spawn helper: send spec: %w", err)
		}
		msg, oob = msg[n:], nil
	}
	return nil
}

// discard kills an unclaimed (or failed) spare and reaps it.
func (sp *spare) discard() {
	if sp.sock >= 0 {
		_ = unix.Close(sp.sock) // Best effort.
		sp.sock = -1
	}
	_ = sp.proc.Signal(syscall.SIGKILL) // Best effort: it may have ended.
	_, _ = sp.proc.Wait()
	_ = sp.report.Close() // Best effort.
}

// The spec's layout (cmd/shellport-spawn-helper/spare.c): a header of six
// 32-bit words in the machine's byte order, then NUL-terminated strings.
const (
	specMagic        = 0x31535053 // "SPS1"
	specHeader       = 24
	specMaxPayload   = 64 << 20
	flagSweepScanAll = 1
)

// The roles of the descriptors sent with a spec, in the order they are
// sent.
const (
	roleStdin = iota
	roleStdout
	roleStderr
	roleTTY
	roleFD3
	roleLandlock
	roleSeccomp
)

// encodeSpec lays s out as a spare's spec, and lists the descriptors to
// send with it in the order of their roles. ok is false for a spec that
// cannot be one (a string with a NUL, which exec refuses anyway, or one
// too large): [Start] then reports it the way it always has.
func encodeSpec(s Spec, scanAll bool) (msg []byte, files []*os.File, ok bool) {
	var roles uint32
	stdio := [3]*os.File{s.Stdin, s.Stdout, s.Stderr}
	if s.TTY != nil {
		stdio = [3]*os.File{s.TTY, s.TTY, s.TTY}
	}
	for i, f := range stdio {
		if f == nil {
			f = devNull()
		}
		if f != nil {
			roles |= 1 << (roleStdin + i)
			files = append(files, f)
		}
	}
	for _, x := range []struct {
		role int
		f    *os.File
	}{{roleTTY, s.TTY}, {roleFD3, s.FD3}, {roleLandlock, s.Restrict.Landlock}, {roleSeccomp, s.Restrict.Seccomp}} {
		if x.f != nil {
			roles |= 1 << x.role
			files = append(files, x.f)
		}
	}
	msg, ok = layoutSpec(s, roles, scanAll)
	return msg, files, ok
}

// layoutSpec is the message of a spec: its header with roles, and s's
// strings. ok is false as for encodeSpec.
func layoutSpec(s Spec, roles uint32, scanAll bool) (msg []byte, ok bool) {
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	var flags uint32
	if scanAll {
		flags |= flagSweepScanAll
	}
	size := len(s.Dir) + len(s.Path) + 2
	for _, list := range [][]string{s.Args, env} {
		for _, a := range list {
			size += len(a) + 1
		}
	}
	if size > specMaxPayload {
		return nil, false
	}
	msg = make([]byte, specHeader, specHeader+size)
	binary.NativeEndian.PutUint32(msg[0:], specMagic)
	binary.NativeEndian.PutUint32(msg[4:], uint32(size))
	binary.NativeEndian.PutUint32(msg[8:], roles)
	binary.NativeEndian.PutUint32(msg[12:], flags)
	binary.NativeEndian.PutUint32(msg[16:], uint32(len(s.Args)))
	binary.NativeEndian.PutUint32(msg[20:], uint32(len(env)))
	for _, list := range [][]string{{s.Dir, s.Path}, s.Args, env} {
		for _, a := range list {
			if strings.IndexByte(a, 0) >= 0 {
				return nil, false
			}
			msg = append(append(msg, a...), 0)
		}
	}
	return msg, true
}
