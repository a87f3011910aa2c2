package testkit

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// ProcWait bounds waits for processes to appear or die. It is a hang
// guard, never a speed assertion.
const ProcWait = 30 * time.Second

var markers atomic.Int64

// Marker returns an argument for sleep that no other process on the
// machine has: a number of seconds (at least an hour) whose digits name
// this test process and a counter. Processes started with it are found
// by [Procs].
func Marker() string {
	return fmt.Sprintf("%d.%d%04d", 3600+os.Getpid()%1000, os.Getpid(), markers.Add(1))
}

// Escapes is a bash script that starts, in the background, one sleep per
// way a command can try to outlive its shell: a new session (setsid), a
// double fork, nohup, disown and a job-control job (set -m), each
// sleeping for marker seconds. It waits (with builtins only, reading
// /proc) until all of them run, then prints "started". EscapeKinds is how
// many it starts.
func Escapes(marker string) string {
	return fmt.Sprintf(`setsid sleep %[1]s </dev/null >/dev/null 2>&1 &
(sleep %[1]s </dev/null >/dev/null 2>&1 &)
nohup sleep %[1]s </dev/null >/dev/null 2>&1 &
sleep %[1]s </dev/null >/dev/null 2>&1 & disown
set -m; sleep %[1]s </dev/null >/dev/null 2>&1 & set +m
__sp_count() { local f a n=0; for f in /proc/[0-9]*/cmdline; do mapfile -d '' -t a < "$f" 2>/dev/null; [[ ${a[0]} == sleep && ${a[1]} == %[1]s ]] && n=$((n+1)); done; echo $n; }
__sp_n=0; while [ "$(__sp_count)" -lt %[2]d ] && [ $__sp_n -lt 1000 ]; do sleep 0.02; __sp_n=$((__sp_n+1)); done
echo started`, marker, EscapeKinds)
}

// EscapeKinds is the number of processes [Escapes] starts.
const EscapeKinds = 5

// Procs lists the live processes (zombies excluded) whose command line has
// marker as an argument.
func Procs(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !hasArg(cmdline, marker) {
			continue
		}
		if Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func hasArg(cmdline []byte, arg string) bool {
	for _, a := range bytes.Split(cmdline, []byte{0}) {
		if string(a) == arg {
			return true
		}
	}
	return false
}

// Alive reports whether pid is a live process; a zombie has died.
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// WaitProcs waits until n processes with marker run, and returns them.
func WaitProcs(t testing.TB, marker string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(ProcWait)
	for {
		pids := Procs(marker)
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes with marker %s after %v, want %d", len(pids), marker, ProcWait, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitNoProcs waits until no process with marker is left, and fails the
// test (killing the survivors) if some outlive ProcWait.
func WaitNoProcs(t testing.TB, marker, what string) {
	t.Helper()
	deadline := time.Now().Add(ProcWait)
	for {
		pids := Procs(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				kill(pid)
			}
			t.Fatalf("%s: %d processes survived (%v)", what, len(pids), pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// KillProcs kills every process with marker; for test cleanup.
func KillProcs(marker string) {
	for _, pid := range Procs(marker) {
		kill(pid)
	}
}

// kill sends SIGKILL to pid, best effort.
func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
