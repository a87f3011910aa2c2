//go:build linux

package spawnhelper

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// child is a supervisor process by its pid. os.StartProcess's Process
// holds a pidfd for the child's whole life, one more descriptor per live
// session (issue 16); a pid is as safe while the child is not reaped,
// since the kernel cannot give its number to another process until then,
// and child keeps it so: Wait waits for the exit without reaping first,
// and no signal is sent once it has.
type child struct {
	Pid int

	mu     sync.RWMutex // held for reading while a signal is sent, for writing to mark it exited
	exited bool
}

// startChild starts path like os.StartProcess, without a pidfd, narrowly
// where it can (see startNarrow). A nil env gives the child this
// process's environment, as os does.
func startChild(path string, argv, env []string, files []*os.File) (*child, error) {
	if env == nil {
		env = os.Environ()
	}
	if pid, err, ok := startNarrow(path, argv, env, files); ok {
		if err != nil {
			return nil, &os.PathError{Op: "fork/exec", Path: path, Err: err}
		}
		return &child{Pid: pid}, nil
	}
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd() // ^uintptr(0) for nil: closed in the child
	}
	pid, _, err := syscall.StartProcess(path, argv, &syscall.ProcAttr{Env: env, Files: fds})
	// The files stay open until the child has its copies.
	for _, f := range files {
		runtime.KeepAlive(f)
	}
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	noteNofile(pid)
	return &child{Pid: pid}, nil
}

// Signal sends sig, or os.ErrProcessDone once the child has exited.
func (c *child) Signal(sig syscall.Signal) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.exited {
		return os.ErrProcessDone
	}
	if err := unix.Kill(c.Pid, sig); err != nil {
		return fmt.Errorf("signal %d: %w", c.Pid, err)
	}
	return nil
}

// Wait waits for the child to exit and reaps it. Call it once.
func (c *child) Wait() (*os.ProcessState, error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, c.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	// Exited (a zombie) or not ours to wait for: from here no signal goes
	// out under its pid, then it is reaped.
	c.mu.Lock()
	c.exited = true
	c.mu.Unlock()
	p, err := os.FindProcess(c.Pid) // never fails on Unix
	if err != nil {
		return nil, err
	}
	return p.Wait()
}
