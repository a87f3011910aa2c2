//go:build linux

package spawnhelper

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// sweepRounds bounds killSession's scan-and-kill loop: each round kills
// what it found, and a process that forked in between has a child in the
// same session that the next round finds.
const sweepRounds = 50

// killSession sends SIGKILL to every process of session sid until none is
// left. It is what remains possible once a supervisor is gone: its
// subreaper role went with it, so only the session still groups what the
// program started.
func killSession(sid int) error {
	if sid <= 1 {
		return fmt.Errorf("spawn helper: refusing to sweep session %d", sid)
	}
	for range sweepRounds {
		pids, err := sessionMembers(sid)
		if err != nil {
			_ = unix.Kill(-sid, unix.SIGKILL) // Best effort: the leader's group.
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL) // Best effort: it may be gone.
		}
	}
	return fmt.Errorf("spawn helper: session %d still has processes after %d rounds of SIGKILL", sid, sweepRounds)
}

// sessionMembers lists the live processes (zombies excluded) of session sid.
func sessionMembers(sid int) ([]int, error) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("spawn helper: list processes: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("spawn helper: list processes: %w", err)
	}
	var out []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// The command name is in parentheses and may itself hold ") ".
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 4 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if s, err := strconv.Atoi(f[3]); err == nil && s == sid {
			out = append(out, pid)
		}
	}
	return out, nil
}
