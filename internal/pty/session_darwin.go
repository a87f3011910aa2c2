//go:build darwin

package pty

import (
	"bytes"
	"fmt"

	"golang.org/x/sys/unix"
)

// killRounds bounds the scan-and-kill loop of killSession; see the Linux
// version.
const killRounds = 50

const zombie = 5 // SZOMB in <sys/proc.h>

func killSession(sid int) error {
	for range killRounds {
		procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
		if err != nil {
			_ = unix.Kill(-sid, unix.SIGKILL) // Best effort: the session's own group.
			return fmt.Errorf("pty: list processes: %w", err)
		}
		found := false
		for i := range procs {
			pid := int(procs[i].Proc.P_pid)
			if pid <= 0 || procs[i].Proc.P_stat == zombie {
				continue
			}
			if s, err := unix.Getsid(pid); err == nil && s == sid {
				found = true
				_ = unix.Kill(pid, unix.SIGKILL) // Best effort: it may be gone.
			}
		}
		if !found {
			return nil
		}
	}
	return fmt.Errorf("pty: session %d still has processes after %d rounds of SIGKILL", sid, killRounds)
}

// waitingForInput looks for a foreground process asleep on the kernel's
// terminal-input wait channel, "ttyin".
func (p *Process) waitingForInput() bool {
	pgrp := p.foregroundGroup()
	if pgrp <= 0 {
		return false
	}
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgrp)
	if err != nil {
		return false
	}
	for i := range procs {
		wmesg := procs[i].Eproc.Wmesg[:]
		if j := bytes.IndexByte(wmesg, 0); j >= 0 {
			wmesg = wmesg[:j]
		}
		if string(wmesg) == "ttyin" {
			return true
		}
	}
	return false
}
