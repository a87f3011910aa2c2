//go:build linux

package pty

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// killRounds bounds the scan-and-kill loop of killSession. Each round kills
// everything it found; a process that forks between the scan and the kill
// has a child in the same session that the next round finds.
const killRounds = 50

// procStat is what killSession and waitingForInput need from
// /proc/PID/stat.
type procStat struct {
	pid, pgrp, sid int
	state          byte
}

// scanProc lists live processes (zombies excluded) matching keep.
func scanProc(keep func(procStat) bool) ([]procStat, error) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("pty: list processes: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("pty: list processes: %w", err)
	}
	var out []procStat
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		st, ok := readStat(pid)
		if ok && st.state != 'Z' && st.state != 'X' && keep(st) {
			out = append(out, st)
		}
	}
	return out, nil
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name is in parentheses and may itself hold ") ", so the
	// fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	sid, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, pgrp: pgrp, sid: sid, state: f[0][0]}, true
}

func killSession(sid int) error {
	// The shell leads both the session and its process group, and without
	// job control its jobs stay in that group: one kill usually takes the
	// whole session, so the first scan below usually finds nothing and the
	// close costs one pass over /proc instead of two.
	_ = unix.Kill(-sid, unix.SIGKILL) // Best effort: the group may be gone.
	for range killRounds {
		procs, err := scanProc(func(st procStat) bool { return st.sid == sid })
		if err != nil {
			// No /proc: fall back to the session's own process group.
			_ = unix.Kill(-sid, unix.SIGKILL) // Best effort.
			return err
		}
		if len(procs) == 0 {
			return nil
		}
		for _, st := range procs {
			_ = unix.Kill(st.pid, unix.SIGKILL) // Best effort: it may be gone.
		}
	}
	return fmt.Errorf("pty: session %d still has processes after %d rounds of SIGKILL", sid, killRounds)
}

func (p *Process) waitingForInput() bool {
	pgrp := p.foregroundGroup()
	if pgrp <= 0 {
		return false
	}
	procs, err := scanProc(func(st procStat) bool { return st.pgrp == pgrp && st.sid == p.pid })
	if err != nil {
		return false
	}
	tty, err := os.Stat(p.ttyName)
	if err != nil {
		return false
	}
	for _, st := range procs {
		if st.state == 'S' && readsTerminal(st.pid, tty) {
			return true
		}
	}
	return false
}

// readsTerminal reports whether pid is blocked in a system call waiting for
// input on tty: read on it, or select, poll or epoll with it in the read set.
// /proc/PID/syscall shows the call and its arguments while the process
// sleeps in it.
func readsTerminal(pid int, tty os.FileInfo) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return false // "running", or not in a system call
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return false
	}
	args := make([]uint64, 0, 6)
	for _, s := range f[1:] {
		v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if err != nil {
			break
		}
		args = append(args, v)
	}
	if len(args) < 3 {
		return false
	}
	isTTY := func(fd uint64) bool { return fdIs(pid, int(fd), tty) }
	switch syscallKind(nr) {
	case kindRead:
		return isTTY(args[0])
	case kindSelect:
		return selectHas(pid, args[0], args[1], isTTY)
	case kindPoll:
		return pollHas(pid, args[0], args[1], isTTY)
	case kindEpoll:
		return epollHas(pid, int(args[0]), isTTY)
	}
	return false
}

func fdIs(pid, fd int, tty os.FileInfo) bool {
	st, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd))
	return err == nil && os.SameFile(st, tty)
}

// selectHas reads the read set of a select or pselect6 call.
func selectHas(pid int, nfds, readfds uint64, isTTY func(uint64) bool) bool {
	if readfds == 0 || nfds == 0 || nfds > 1024 {
		return false
	}
	set := make([]byte, (nfds+7)/8)
	if !readMem(pid, readfds, set) {
		return false
	}
	for fd := uint64(0); fd < nfds; fd++ {
		if set[fd/8]&(1<<(fd%8)) != 0 && isTTY(fd) {
			return true
		}
	}
	return false
}

// pollHas reads the pollfd array of a poll or ppoll call.
func pollHas(pid int, fds, nfds uint64, isTTY func(uint64) bool) bool {
	if fds == 0 || nfds == 0 || nfds > 1024 {
		return false
	}
	buf := make([]byte, 8*nfds) // struct pollfd {int fd; short events, revents}
	if !readMem(pid, fds, buf) {
		return false
	}
	for i := uint64(0); i < nfds; i++ {
		e := buf[8*i:]
		fd := int32(uint32(e[0]) | uint32(e[1])<<8 | uint32(e[2])<<16 | uint32(e[3])<<24)
		events := uint16(e[4]) | uint16(e[5])<<8
		if fd >= 0 && events&unix.POLLIN != 0 && isTTY(uint64(fd)) {
			return true
		}
	}
	return false
}

// epollHas reads the epoll instance's watch list from /proc/PID/fdinfo.
func epollHas(pid, epfd int, isTTY func(uint64) bool) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + strconv.Itoa(epfd))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "tfd:" || f[2] != "events:" {
			continue
		}
		fd, err1 := strconv.ParseUint(f[1], 10, 31)
		events, err2 := strconv.ParseUint(f[3], 16, 32)
		if err1 == nil && err2 == nil && events&unix.EPOLLIN != 0 && isTTY(fd) {
			return true
		}
	}
	return false
}

func readMem(pid int, addr uint64, buf []byte) bool {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return false
	}
	defer f.Close()
	n, err := f.ReadAt(buf, int64(addr))
	return err == nil && n == len(buf)
}

type callKind int

const (
	kindOther callKind = iota
	kindRead
	kindSelect
	kindPoll
	kindEpoll
)

// syscallKind classifies the system calls a terminal reader blocks in.
// amd64 also has the legacy calls (select, poll, epoll_wait) that newer
// architectures dropped; their numbers are ABI and never change.
func syscallKind(nr int) callKind {
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64:
		return kindRead
	case unix.SYS_PSELECT6:
		return kindSelect
	case unix.SYS_PPOLL:
		return kindPoll
	case unix.SYS_EPOLL_PWAIT, unix.SYS_EPOLL_PWAIT2:
		return kindEpoll
	}
	if runtime.GOARCH == "amd64" {
		switch nr {
		case 23: // select
			return kindSelect
		case 7: // poll
			return kindPoll
		case 232: // epoll_wait
			return kindEpoll
		}
	}
	return kindOther
}
