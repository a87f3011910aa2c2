//go:build linux || darwin

package main

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ttyFd is where the spawner passes the terminal.
const ttyFd = 3

func run(args []string) error {
	if len(args) < 2 {
		return errors.New("usage: shellport-spawn-helper DIR PROGRAM [ARG...]")
	}
	dir, prog, argv := args[0], args[1], args[1:]

	// The signal mask is per thread and survives exec, so clear it on the
	// thread that will call execve. This goroutine never ends, so the lock
	// is never released.
	runtime.LockOSThread()

	if _, err := unix.Setsid(); err != nil {
		// EPERM: already a group leader; fine only if it already leads a
		// session (a spawner that set POSIX_SPAWN_SETSID).
		if sid, _ := unix.Getsid(0); sid != os.Getpid() {
			return wrap("setsid", err)
		}
	}
	if err := unix.IoctlSetInt(ttyFd, unix.TIOCSCTTY, 0); err != nil {
		return wrap("make fd 3 the controlling terminal", err)
	}
	for fd := 0; fd <= 2; fd++ {
		if err := unix.Dup2(ttyFd, fd); err != nil {
			return wrap("dup2 fd 3 to fd "+strconv.Itoa(fd), err)
		}
	}
	if dir != "" {
		if err := unix.Chdir(dir); err != nil {
			return wrap("chdir "+strconv.Quote(dir), err)
		}
	}
	path, err := lookPath(prog)
	if err != nil {
		return err
	}
	// Relaying every signal installs the Go handler for each, including
	// those inherited as ignored; execve resets handled signals to their
	// defaults, so the program starts with none ignored. The helper never
	// reads the channel: it execs next.
	signal.Notify(make(chan os.Signal, 1))
	if err := resetReservedSignals(); err != nil {
		return wrap("reset signals 32 and 33", err)
	}
	if err := unblockSignals(); err != nil {
		return wrap("unblock signals", err)
	}
	closeOnExecFrom(ttyFd)
	return wrap("exec "+strconv.Quote(path), unix.Exec(path, argv, os.Environ()))
}

// closeOnExecFrom marks every open fd from low up close-on-exec. Closing
// them outright would pull descriptors from under the Go runtime; at exec
// the kernel closes them all.
func closeOnExecFrom(low int) {
	if entries, err := os.ReadDir("/dev/fd"); err == nil {
		for _, e := range entries {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= low {
				unix.CloseOnExec(fd)
			}
		}
		return
	}
	var lim unix.Rlimit
	max := 1 << 16
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur < uint64(max) {
		max = int(lim.Cur)
	}
	for fd := low; fd < max; fd++ {
		unix.CloseOnExec(fd)
	}
}

// lookPath resolves prog like execvp, in the PATH of the environment the
// helper was given (which is the program's).
func lookPath(prog string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, prog)
		if unix.Access(p, unix.X_OK) == nil {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return "", errors.New(strconv.Quote(prog) + ": not found in PATH")
}

func wrap(op string, err error) error {
	return errors.New(op + ": " + err.Error())
}
