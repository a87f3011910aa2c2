//go:build unix

package bash

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func killGroup(pgid int, sig signal) error {
	// kill(0) and kill(-1) would hit the runtime's own group or every
	// process it may signal.
	if pgid <= 1 {
		return fmt.Errorf("bash: refusing to signal process group %d", pgid)
	}
	s := syscall.SIGKILL
	if sig == sigTerm {
		s = syscall.SIGTERM
	}
	if err := syscall.Kill(-pgid, s); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("bash: signal process group %d: %w", pgid, err)
	}
	return nil
}

func exitOf(ps *os.ProcessState) exitInfo {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = fmt.Sprintf("signal %d", int(ws.Signal()))
		}
		return exitInfo{code: -1, signal: name}
	}
	return exitInfo{code: ps.ExitCode()}
}
