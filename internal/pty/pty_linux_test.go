package pty

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
)

// sessionMembers lists the live processes of session sid.
func sessionMembers(t *testing.T, sid int) []procStat {
	t.Helper()
	procs, err := scanProc(func(st procStat) bool { return st.sid == sid })
	if err != nil {
		t.Fatal(err)
	}
	return procs
}

func alive(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

// Close must leave no process of the session behind: background jobs,
// jobs in their own process groups (job control), and nohup'd ones.
func TestCloseKillsWholeSession(t *testing.T) {
	p, rd := startBash(t, Options{}, `sleep 300 & nohup sleep 300 >/dev/null 2>&1 & set -m; sleep 300 & (sleep 300; :) & echo ready; wait`)
	rd.waitFor(t, "ready")
	eventually(t, "five session members", func() bool { return len(sessionMembers(t, p.Pid())) >= 5 })
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if left := sessionMembers(t, p.Pid()); len(left) != 0 {
		t.Fatalf("processes of session %d survived Close: %+v", p.Pid(), left)
	}
}

// A process that left the session but kept the terminal open holds the
// slave, so the master never reads EOF; Close must still wake the reader
// (issue 3: readers that outlive the master).
func TestCloseWakesReaderWhenSlaveOutlivesSession(t *testing.T) {
	p, rd := startBash(t, Options{}, `setsid sleep 300 & echo "escaped $!"; wait`)
	rd.waitFor(t, "escaped ")
	line := strings.Fields(strings.SplitN(strings.SplitN(rd.String(), "escaped ", 2)[1], "\n", 2)[0])
	pid, err := strconv.Atoi(line[0])
	if err != nil {
		t.Fatalf("no pid in %q", rd.String())
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	// Close only once the child has left the session (setsid done, it leads
	// its own): before that it is still a member and Close rightly kills it,
	// which made this test skip instead of run (issue 18).
	eventually(t, "escaped process in its own session", func() bool {
		st, ok := readStat(pid)
		return ok && alive(pid) && st.sid == pid
	})
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rd.waitEOF(t)
	if !alive(pid) {
		t.Fatal("the child that left the session died with it; nothing held the slave, so the test proved nothing")
	}
}

func TestWaitingForInput(t *testing.T) {
	cases := map[string]string{
		"read builtin": `read -r x`,
		"cat":          `exec cat`,
	}
	if _, err := exec.LookPath("python3"); err == nil {
		cases["select"] = `exec python3 -c 'import select,sys; select.select([sys.stdin],[],[])'`
		cases["poll"] = `exec python3 -c 'import select; p=select.poll(); p.register(0, select.POLLIN); p.poll()'`
		cases["epoll"] = `exec python3 -c 'import select; e=select.epoll(); e.register(0, select.EPOLLIN); e.poll()'`
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			p, _ := startBash(t, Options{}, script)
			eventually(t, "blocked on terminal input", p.WaitingForInput)
		})
	}
}

func TestNotWaitingForInput(t *testing.T) {
	p, rd := startBash(t, Options{}, `echo ready; exec sleep 300`)
	rd.waitFor(t, "ready")
	eventually(t, "sleep asleep", func() bool {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/comm")
		st, ok := readStat(p.Pid())
		return ok && st.state == 'S' && strings.TrimSpace(string(comm)) == "sleep"
	})
	if p.WaitingForInput() {
		t.Fatal("a sleeping process reported as waiting for input")
	}
}

// The program must die with the process that started it (issue 3: the
// shell dies with the runtime).
func TestParentDeathKillsProgram(t *testing.T) {
	requirePTY(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), orphanHelperEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	_ = cmd.Wait()
	pidStr, ok := strings.CutPrefix(strings.TrimSpace(line), "pid ")
	if !ok {
		t.Fatalf("helper said %q", line)
	}
	pid, _ := strconv.Atoi(pidStr)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	eventually(t, "orphaned program killed", func() bool { return !alive(pid) })
}

// Issue 10 (processes that escape): under its supervisor, a terminal
// program's processes all die with Close, including those that left its
// session (setsid), double forks, nohup, disown and set -m jobs; while the
// program runs they keep running.
func TestSupervisedCloseKillsEverything(t *testing.T) {
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	p, rd := startBash(t, Options{SpawnHelper: spawnHelper(t)}, testkit.Escapes(marker)+"\nread -r _")
	rd.waitFor(t, "started")
	testkit.WaitProcs(t, marker, testkit.EscapeKinds)
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes survived Close: %v", left)
	}
	if p.Lost() {
		t.Fatal("the supervisor was reported lost")
	}
}

// KillSession under a supervisor returns once the program is reaped, with
// the program's own status (SIGKILL), and everything is gone.
func TestSupervisedKillSession(t *testing.T) {
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	p, rd := startBash(t, Options{SpawnHelper: spawnHelper(t)}, "setsid sleep "+marker+" & echo ready; wait")
	rd.waitFor(t, "ready")
	testkit.WaitProcs(t, marker, 1)
	if err := p.KillSession(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("KillSession returned before the program was reaped")
	}
	if st := wait(t, p); st.Signal != syscall.SIGKILL {
		t.Fatalf("status %+v, want SIGKILL", st)
	}
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes survived KillSession: %v", left)
	}
}

// Issue 10: when the runtime dies without closing anything (here a test
// binary that exits), every process its supervised program started dies
// with it, however it detached.
func TestSupervisedProgramDiesWithTheRuntime(t *testing.T) {
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), orphanHelperEnv+"=1", orphanHelperEnv+"_SPAWN_HELPER="+spawnHelper(t),
		orphanScriptEnv+"="+testkit.Escapes(marker)+"\nsleep "+marker)
	out, err := cmd.Output()
	if err != nil || !strings.HasPrefix(string(out), "pid ") {
		t.Fatalf("orphan parent: %v, said %q", err, out)
	}
	testkit.WaitNoProcs(t, marker, "processes of a program whose runtime exited")
}
