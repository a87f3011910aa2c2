package bash

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/tools"
)

// executor runs commands for all sessions and keeps the table of background
// tasks. It is shared by the three tools New returns.
type executor struct {
	host tools.Host
	set  settings

	shellMu   sync.Mutex
	shellPath string // resolved once, on first use
	bufs      bufPool
	// spares is the supervisor started ahead of the next command (Linux,
	// in the shellport executable: spawnhelper.UseSpares), killed by
	// close; nil: every command's supervisor is exec'd for it.
	spares *spawnhelper.Spares

	mu      sync.Mutex
	closed  bool
	seq     int              // last task number handed out
	tasks   map[string]*task // every task ever started, for ownership checks
	running int              // tasks started or starting and not yet finished
	live    map[*group]struct{}
	// starting counts, per session key, the spawns in progress, and
	// doomed holds the keys of closed sessions that had one: a group that
	// finishes starting after its session's close is killed at once. Both
	// shrink back when the spawns end.
	starting map[string]int
	doomed   map[string]bool

	mem taskMemory // unread task output held in memory, across tasks
}

func newExecutor(host tools.Host, cfg Config) *executor {
	set := newSettings(host, cfg)
	var spares *spawnhelper.Spares
	if spawnhelper.SparesInUse() {
		spares = spawnhelper.NewSpares(set.spawnHelper)
	}
	return &executor{
		host:   host,
		set:    set,
		spares: spares,
		tasks:  make(map[string]*task),
		live:   make(map[*group]struct{}),

		starting: make(map[string]int),
		doomed:   make(map[string]bool),
	}
}

// shell returns the path of the bash executable. A failed lookup is not
// cached, so installing bash later helps.
func (e *executor) shell() (string, error) {
	e.shellMu.Lock()
	defer e.shellMu.Unlock()
	if e.shellPath != "" {
		return e.shellPath, nil
	}
	p, err := exec.LookPath(e.set.shell)
	if err != nil {
		return "", fmt.Errorf("find shell %q: %w", e.set.shell, err)
	}
	e.shellPath = p
	return p, nil
}

// start runs command with `bash -c` in dir, stdin /dev/null, stdout and
// stderr on the given files, and tracks it as live until forget. A command
// too long for one argument (the kernel's limit is 128 KiB) reaches bash
// through a descriptor instead (see script.go).
func (e *executor) start(command, dir string, env []string, stdout, stderr *os.File, owner string, sb *sandbox.Policy) (*group, error) {
	path, err := e.shell()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	closed := e.closed
	if !closed {
		e.starting[owner]++
	}
	e.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	defer e.doneStarting(owner)
	viaFD := len(command) >= maxArgBytes
	proc, pid, err := e.startShell(path, command, viaFD, dir, env, stdout, stderr, sb)
	if err != nil && !viaFD && errors.Is(err, syscall.E2BIG) {
		// The command fits the limit of one argument but not, with this
		// environment, the limit of all of them together.
		proc, pid, err = e.startShell(path, command, true, dir, env, stdout, stderr, sb)
	}
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	g := &group{proc: proc, pid: pid, owner: owner, done: make(chan struct{})}
	e.mu.Lock()
	switch {
	case e.closed:
		// Close ran while this one was starting and could not see it.
		g.cause = causeShutdown
		proc.killAll()
	case e.doomed[owner]:
		// So did its session's close.
		g.cause = causeSession
		proc.killAll()
	}
	e.live[g] = struct{}{}
	e.mu.Unlock()
	return g, nil
}

// doneStarting ends one spawn of owner's (see executor.starting).
func (e *executor) doneStarting(owner string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.starting[owner]--; e.starting[owner] <= 0 {
		delete(e.starting, owner)
		delete(e.doomed, owner)
	}
}

// startShell starts bash with the command as its -c argument, or with a
// trampoline that reads it from fd 3.
func (e *executor) startShell(path, command string, viaFD bool, dir string, env []string, stdout, stderr *os.File, sb *sandbox.Policy) (launched, int, error) {
	restrict, err := sb.Restrictions()
	if err != nil {
		return nil, 0, err
	}
	defer restrict.Close() // the shell holds its own copies
	spec := launchSpec{
		restrict: restrict,
		path:     path,
		argv:     []string{filepath.Base(path), "-c", command},
		dir:      dir,
		env:      env,
		stdout:   stdout,
		stderr:   stderr,
	}
	if viaFD {
		f, err := scriptFile(command, e.set.spillDir)
		if err != nil {
			return nil, 0, err
		}
		defer f.Close() // the shell holds its own copy
		spec.argv[2] = trampoline
		spec.fd3 = f
	}
	return e.launch(spec)
}

// forget marks a group as finished and drained.
func (e *executor) forget(g *group) {
	e.mu.Lock()
	delete(e.live, g)
	e.mu.Unlock()
	close(g.done)
}

// closeSession stops what the session (by its Key) started and returns once
// it is dead, bounded by stopAll. Its tasks' ownership records stay, so later
// calls about them, from a new session with the same ID too, still get
// "belongs to another session".
func (e *executor) closeSession(sessionKey string) {
	if sessionKey == "" {
		return
	}
	e.mu.Lock()
	if e.starting[sessionKey] > 0 {
		e.doomed[sessionKey] = true
	}
	var groups []*group
	for g := range e.live {
		if g.owner == sessionKey {
			groups = append(groups, g)
		}
	}
	var owned []*task
	for _, t := range e.tasks {
		if t.owner == sessionKey {
			owned = append(owned, t)
		}
	}
	e.mu.Unlock()
	stopAll(groups, causeSession)
	for _, t := range owned {
		t.release()
	}
}

// busy says how many commands of the session are live (foreground
// ones and background tasks alike), for tools.Runner.
func (e *executor) busy(sessionKey string) string {
	e.mu.Lock()
	n := 0
	for g := range e.live {
		if g.owner == sessionKey {
			n++
		}
	}
	e.mu.Unlock()
	switch n {
	case 0:
		return ""
	case 1:
		return "a command (or background task) still running"
	}
	return fmt.Sprintf("%d commands (or background tasks) still running", n)
}

// close stops every live group and refuses new ones.
func (e *executor) close() error {
	e.mu.Lock()
	e.closed = true
	groups := make([]*group, 0, len(e.live))
	for g := range e.live {
		groups = append(groups, g)
	}
	e.mu.Unlock()
	stuck := stopAll(groups, causeShutdown)
	e.spares.Close()
	if stuck > 0 {
		return fmt.Errorf("bash: %d process groups had not exited %s after SIGKILL", stuck, drainWait+time.Second)
	}
	return nil
}

// stopAll sends SIGTERM to every group, SIGKILL after closeGrace, and waits
// a bounded time for them to finish. It returns how many did not.
func stopAll(groups []*group, c stopCause) int {
	for _, g := range groups {
		g.stop(c, closeGrace)
	}
	deadline := time.NewTimer(closeGrace + drainWait + time.Second)
	defer deadline.Stop()
	for i, g := range groups {
		select {
		case <-g.done:
		case <-deadline.C:
			stuck := 0
			for _, g := range groups[i:] {
				select {
				case <-g.done:
				default:
					stuck++
				}
			}
			return stuck
		}
	}
	return 0
}
