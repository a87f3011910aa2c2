package persistent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/pty"
	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/spawnhelper"
)

// Bounded waits of a shell's teardown. None is on the success path of a
// call; each ends as soon as the awaited event happens.
const (
	drainWait = 2 * time.Second // for the terminal to read EOF after the session was killed
	reapWait  = 3 * time.Second // for the shell to be reaped after SIGKILL
)

// The shell's terminal is wide enough that tools wrapping at the terminal
// width rarely wrap.
const (
	terminalRows = 48
	terminalCols = 160
)

// testOnlyLegacyLoop, when set by a test, makes new shells run the driver
// loop's path for bash before 4.1 (see bootScript).
var testOnlyLegacyLoop bool

// testOnlyScriptLoop, when set by a test, makes new shells run the driver
// loop as shell commands even where the turn builtin is at hand.
var testOnlyScriptLoop bool

// shellConfig is what every shell of a tool shares.
type shellConfig struct {
	shell       string
	spawnHelper string
	turnLib     string // the turn builtin (see turnLibBeside), "" for none
	maxChars    int
	spillDir    string
	wakers      *wakerPool // shared by the tool's shells
	// spares holds a supervisor started ahead of the next shell's start,
	// in the shellport executable only (see spawnhelper.UseSpares); nil
	// elsewhere.
	spares *spawnhelper.Spares
}

// shell is one bash on a terminal, driven through its private directory:
// an inbox file the tool appends commands to, a control FIFO the shell
// reads its wake bytes from, and a return FIFO it writes its reports to
// (see bootScript). A reader goroutine drains the terminal at all times
// into the current capture; when it meets a frame, it reads the return
// FIFO to decide whether the frame is the driver's (see onFrame).
type shell struct {
	cfg   shellConfig
	proc  *pty.Process
	dir   string
	inbox *os.File
	ctl   *os.File // non-blocking, outside the poller (see openFIFO)
	ret   *os.File // likewise

	readDone chan struct{}
	ready    chan struct{} // closed when the shell's first report arrived
	termOnce sync.Once

	inboxSize     int64       // bytes appended to the inbox; between calls the shell has read them all
	inboxReleased int64       // inboxSize when the inbox's storage was last released (see releaseInbox)
	sendBuf       []byte      // the last command sent, NUL-terminated; reused by the next
	timer         *time.Timer // the running call's timeout, reused from call to call

	// The return FIFO's raw descriptor and what one read of it got (see
	// readReports), kept so that reading a report allocates nothing.
	retConn syscall.RawConn
	retRead func(fd uintptr) bool
	retBuf  [128]byte // a report is 37 bytes; a fuller read is followed by another
	retN    int
	retErr  error

	// The inbox's and the control FIFO's raw descriptors, and what a
	// write to them has left (see writeRaw), likewise.
	inboxConn     syscall.RawConn
	ctlConn       syscall.RawConn
	inboxInMemory bool // the private directory is on a memory file system (see writeInbox)
	writeOutFn    func(fd uintptr) bool
	outMsg        []byte
	outErr        error

	mu        sync.Mutex
	ctlLong   *os.File // a pollable copy of ctl a long command is written through (see send); closed once written
	scan      scanner
	cap       *capture   // the running call's output, or what arrives between calls
	call      *callState // the running call, nil between calls
	reports   reportLog  // what the shell wrote to the return FIFO, not yet matched to a frame
	loopEnded bool       // the shell's command loop ended (its end frame or "e" report arrived)
	last      []byte     // the latest accepted token (tests check it never leaks)
	count     uint64     // the driver's turn counter in that token (see tokenCount)
	closed    bool       // the files are closed (terminate)

	// Split calls (see begin): the one running, which promoteTimer hands
	// to a waiting goroutine at drainDelay or its timeout (see
	// armPromote); and one whose frame the reader has just accepted, for
	// it to finish once it lets go of mu.
	splitCall    atomic.Pointer[callState]
	promoteMu    sync.Mutex
	promoteTimer *time.Timer
	promoteArmed bool       // promoteTimer will fire
	promoteFires time.Time  // when
	ended        *callState // guarded by mu

	drainTimer *time.Timer // starts draining the return FIFO for a long call (see drainDelay)
	drainFile  *os.File    // the pollable copy of ret being drained, while a call runs
}

// callState is one command in flight.
type callState struct {
	finished chan struct{} // closed when the end frame was accepted
	waker    *waker        // signalled with finished and at the shell's death, while the call waits; nil: none
	status   int
	out      captured
	taken    bool // the frame came but its report was gone (another process read it) or doubled (another wrote one): see onFrame
	lost     bool // the shell was found waiting for a command before this one ended (see checkLost)

	ctx      context.Context // the call's
	exited   <-chan struct{} // the shell's Done
	start    time.Time       // when the command was sent
	deadline time.Time       // when the call times out
	viaInbox bool            // the command went through the inbox (see checkLost)

	// A split call's (see begin): who owns it, what ends it, and the
	// stop of its context's watch.
	split   atomic.Int32
	done    func(outcome, error)
	stopCtx func() bool
}

// Holds reports whether the call's wait is over: its end frame came, the
// shell died, or the call's context ended (a condition for its waker).
func (c *callState) Holds() bool {
	return isClosed(c.finished) || isClosed(c.exited) || c.ctx.Err() != nil
}

// startShell starts a shell in cwd with env, confined by sb (nil: none).
// Under a sandbox the shell may open the files of its private directory
// (its control FIFOs) and nothing else there: the runtime made them.
func startShell(ctx context.Context, cfg shellConfig, cwd string, env []string, sb *sandbox.Policy) (_ *shell, err error) {
	if cfg.spawnHelper == "" && spawnhelper.Required() {
		// Never unsupervised: the supervisor is what kills everything the
		// shell starts when the session or the runtime ends.
		return nil, fmt.Errorf("persistent: start shell: no %s is configured, and on %s shells run only under it", spawnhelper.Name, runtime.GOOS)
	}
	dir, inMemory, err := makePrivateDir()
	if err != nil {
		return nil, fmt.Errorf("persistent: private directory: %w", err)
	}
	s := &shell{cfg: cfg, dir: dir, inboxInMemory: inMemory, readDone: make(chan struct{}), ready: make(chan struct{})}
	defer func() {
		if err != nil {
			s.closeFiles()
			_ = os.RemoveAll(dir) // Best effort.
		}
	}()
	for _, name := range []string{ctlFile, retFile} {
		if err := mkfifo(filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	if s.inbox, err = os.OpenFile(filepath.Join(dir, inboxFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
		return nil, fmt.Errorf("persistent: create inbox: %w", err)
	}
	// Opened read-write, neither end of a FIFO ever blocks on open or sees
	// EOF, and the shell dying never makes a write fail.
	if s.ctl, err = openFIFO(filepath.Join(dir, ctlFile)); err != nil {
		return nil, fmt.Errorf("persistent: open control FIFO: %w", err)
	}
	if s.ret, err = openFIFO(filepath.Join(dir, retFile)); err != nil {
		return nil, fmt.Errorf("persistent: open return FIFO: %w", err)
	}
	if s.retConn, err = s.ret.SyscallConn(); err != nil {
		return nil, fmt.Errorf("persistent: open return FIFO: %w", err)
	}
	s.retRead = s.readRet
	if s.inboxConn, err = s.inbox.SyscallConn(); err != nil {
		return nil, fmt.Errorf("persistent: create inbox: %w", err)
	}
	if s.ctlConn, err = s.ctl.SyscallConn(); err != nil {
		return nil, fmt.Errorf("persistent: open control FIFO: %w", err)
	}
	s.writeOutFn = s.writeOut
	restrict, err := sb.Restrictions(dir)
	if err != nil {
		return nil, fmt.Errorf("persistent: start shell: %w", err)
	}
	defer restrict.Close() // the shell holds its own copies
	s.proc, err = pty.Start(ctx, pty.Options{
		Path:        cfg.shell,
		Args:        []string{"--noprofile", "--norc", "-c", bootScript(dir, testOnlyLegacyLoop, cfg.bootTurnLib()), "bash"},
		Dir:         cwd,
		Env:         env,
		Size:        pty.Winsize{Rows: terminalRows, Cols: terminalCols},
		SpawnHelper: cfg.spawnHelper,
		Restrict:    restrict,
		OnDone:      s.wakeCall,
		Spares:      cfg.spares,
	})
	if err != nil {
		return nil, fmt.Errorf("persistent: start shell: %w", err)
	}
	s.cap = newCapture(cfg.maxChars, cfg.spillDir)
	go s.readLoop()
	return s, nil
}

// makePrivateDir makes a shell's private directory: on a memory file
// system where there is one the runtime may use (see privateBases), else
// in os.TempDir(). inMemory: the directory is on a memory file system
// (see writeInbox).
func makePrivateDir() (dir string, inMemory bool, err error) {
	for _, base := range privateBases() {
		if dir, err := os.MkdirTemp(base, privateDirPrefix); err == nil {
			return dir, true, nil
		}
	}
	if dir, err = os.MkdirTemp("", privateDirPrefix); err != nil {
		return "", false, err
	}
	return dir, onMemoryFS(dir), nil
}

const privateDirPrefix = "shellport-bash-"

// readLoop drains the terminal into the current capture. It reads
// through pty's ReadEach, which lends a buffer only while output is there:
// an idle shell, the common state of thousands of live sessions, holds no
// read buffer while it waits (issue 16: the reader's buffers were a large
// part of a live session's memory in the runtime).
func (s *shell) readLoop() {
	defer close(s.readDone)
	_ = s.proc.ReadEach(s.feedLocked) // returns at the terminal's end or Close
}

// feedLocked feeds b with s.mu held, then finishes the split call whose
// frame b held, if one did (see frameEnded): this goroutine ends it, with
// no goroutine woken to do so.
func (s *shell) feedLocked(b []byte) {
	s.mu.Lock()
	s.feed(b)
	ended := s.ended
	s.ended = nil
	s.mu.Unlock()
	if ended != nil {
		s.finishSplit(ended)
	}
}

// wakeCall signals the running call's waker, if it has one, and hands a
// split call nobody waits for to a goroutine that will (the shell died).
func (s *shell) wakeCall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call == nil {
		return
	}
	if s.call.waker != nil {
		s.call.waker.signal()
	}
	s.promote(s.call)
}

// dead reports whether the shell has exited.
func (s *shell) dead() bool {
	select {
	case <-s.proc.Done():
		return true
	default:
		return false
	}
}

// status is how the shell ended; valid once dead.
func (s *shell) status() pty.ExitStatus {
	st, _ := s.proc.Wait(context.Background()) // Done is closed: returns at once.
	return st
}

// terminate kills every process of the shell's session and releases the
// terminal, the FIFOs and the private directory. With drain it first lets
// the reader take in what the dying processes wrote, and collects the
// shell's last reports. Idempotent.
func (s *shell) terminate(drain bool) {
	s.termOnce.Do(func() {
		_ = s.proc.KillSession() // Best effort: Close sweeps again.
		if drain {
			waitFor(s.proc.Done(), reapWait)
			waitFor(s.readDone, drainWait)
			s.mu.Lock()
			s.readReports()
			s.mu.Unlock()
		}
		_ = s.proc.Close() // Best effort: it reports only a process it could not reap.
		s.closeFiles()
		waitFor(s.readDone, drainWait)
		_ = os.RemoveAll(s.dir) // Best effort.
	})
}

// close terminates the shell and drops output gathered since the last
// call, which no one will read.
func (s *shell) close() {
	s.terminate(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call == nil && s.cap != nil {
		s.cap.discard()
		s.cap = nil
	}
}

func (s *shell) closeFiles() {
	s.mu.Lock()
	long := s.ctlLong
	s.closed = true
	s.mu.Unlock()
	s.stopDrain()
	for _, f := range []*os.File{s.inbox, s.ctl, s.ret, long} {
		if f != nil {
			_ = f.Close() // Best effort.
		}
	}
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
