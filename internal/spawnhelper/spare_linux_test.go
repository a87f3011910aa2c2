//go:build linux

package spawnhelper_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 16: a spare is a supervisor exec'd before its program is known;
// the program's spec reaches it over a socket. Everything a program sees
// and every way it ends must be what a supervisor exec'd for it gives.

// readySpares returns a pool with a spare ready to be claimed, closed at
// cleanup.
func readySpares(t *testing.T) (*spawnhelper.Spares, string) {
	t.Helper()
	helper := testkit.SpawnHelper(t)
	sp := spawnhelper.NewSpares(helper)
	t.Cleanup(sp.Close)
	p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "true", Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a spare ready", func() bool { return sp.SparePid() != 0 })
	return sp, helper
}

// isSpare reports whether pid is a live spare (not a zombie): exec'd with
// --spare, or forked by the spawner, whose command line it keeps.
func isSpare(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) == 0 || f[0] == "Z" || f[0] == "X" {
		return false
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return bytes.Contains(cmdline, []byte("\x00--spare\x00")) || bytes.Contains(cmdline, []byte("\x00--spawner\x00"))
}

// hasExited reports whether pid has exited: a zombie, or gone.
func hasExited(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// portrait is what a program can tell about how it was started: its
// arguments, directory, environment, descriptors (and what fd 3 and stdin
// hold), signal state, session and group.
const portrait = `echo "args: $0 $*"; echo "cwd: $(pwd)"; env | LC_ALL=C sort
echo "fds: $(ls /proc/self/fd | LC_ALL=C sort | tr '\n' ' ')"
grep -E '^Sig(Blk|Ign)' /proc/self/status
read -r sid pgid <<<"$(ps -o sid= -o pgid= -p $$)"; [ "$sid" = $$ ] && [ "$pgid" = $$ ] && echo "leads its session"
echo "fd3: $(cat <&3)"; echo "stdin: $(cat)"`

func TestSpareStartsWhatStartStarts(t *testing.T) {
	sp, helper := readySpares(t)
	dir := t.TempDir()
	describe := func(start func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error)) string {
		t.Helper()
		in, err := os.CreateTemp(t.TempDir(), "stdin")
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		fd3, err := os.CreateTemp(t.TempDir(), "fd3")
		if err != nil {
			t.Fatal(err)
		}
		defer fd3.Close()
		for f, text := range map[*os.File]string{in: "from stdin", fd3: "from fd 3"} {
			if _, err := f.WriteString(text); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Seek(0, 0); err != nil {
				t.Fatal(err)
			}
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		p, err := start(context.Background(), spawnhelper.Spec{
			Helper: helper, Path: "bash", Args: []string{"argv-zero", "--noprofile", "--norc", "-c", portrait, "name", "two words", "", "ü"},
			Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH"), "ONE=1", "EMPTY=", "MULTI=a\nb"},
			Stdin: in, Stdout: w, Stderr: w, FD3: fd3,
		})
		_ = w.Close()
		if err != nil {
			t.Fatal(err)
		}
		out := (&started{Process: p, out: r}).output(t)
		if st, err := p.Wait(); err != nil || !st.Success() || p.Lost() {
			t.Fatalf("status %v %v lost %v; output %q", st, err, p.Lost(), out)
		}
		return out
	}
	spare := sp.SparePid()
	viaSpare := describe(sp.Start)
	if isSpare(spare) || sp.SparePid() == spare {
		t.Fatalf("spare %d was not claimed", spare)
	}
	viaExec := describe(spawnhelper.Start)
	if viaSpare != viaExec {
		t.Fatalf("a spare started the program differently:\n--- spare\n%s\n--- exec\n%s", viaSpare, viaExec)
	}
	for _, want := range []string{"args: name two words  ü", "cwd: " + dir, "MULTI=a\n", "fds: 0 1 2 3 ", "leads its session", "fd3: from fd 3", "stdin: from stdin"} {
		if !strings.Contains(viaSpare, want) {
			t.Errorf("missing %q in\n%s", want, viaSpare)
		}
	}
}

// A start that fails through a spare fails as one through Start does.
func TestSpareStartErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	huge := strings.Repeat("x", 200<<10)
	for _, tc := range []struct {
		name string
		spec spawnhelper.Spec
		op   string
		err  syscall.Errno
	}{
		{"missing program", spawnhelper.Spec{Path: missing, Dir: dir}, "exec", syscall.ENOENT},
		{"missing directory", spawnhelper.Spec{Path: "/bin/true", Dir: missing}, "chdir", syscall.ENOENT},
		{"not in PATH", spawnhelper.Spec{Path: "shellport-no-such-program", Dir: dir, Env: []string{"PATH=" + dir}}, "notfound", syscall.ENOENT},
		// Too long for exec: the program's exec fails, whether its
		// supervisor read the spec from a file (Start) or a socket.
		{"argument too long", spawnhelper.Spec{Path: "/bin/true", Args: []string{"true", huge}, Dir: dir}, "", syscall.E2BIG},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, helper := readySpares(t)
			spare := sp.SparePid()
			spec := tc.spec
			spec.Helper = helper
			for name, start := range map[string]func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error){"spare": sp.Start, "exec": spawnhelper.Start} {
				err := startFails(t, name, start, spec)
				var se *spawnhelper.StartError
				if tc.op == "" && errors.Is(err, tc.err) {
					continue
				}
				if !errors.As(err, &se) || se.Op != tc.op || !errors.Is(err, tc.err) {
					t.Fatalf("%s: error %q (%#v), want op %s, %v", name, err, se, tc.op, tc.err)
				}
			}
			if isSpare(spare) {
				t.Fatalf("spare %d was not claimed", spare)
			}
		})
	}
}

// A claimed spare is a session's supervisor like any other: KillAll kills
// everything the program started, detached or not.
func TestClaimedSpareKillsEverything(t *testing.T) {
	sp, helper := readySpares(t)
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	spare := sp.SparePid()
	p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "bash", Dir: "/", Stdout: w, Stderr: w,
		Args: []string{"bash", "-c", `setsid sleep ` + marker + ` </dev/null >/dev/null 2>&1 & (sleep ` + marker + ` &) ; echo ready; exec sleep ` + marker}})
	_ = w.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := &started{Process: p, out: r}
	t.Cleanup(func() { _ = p.KillAll(); _, _ = p.Wait(); _ = r.Close() })
	if p.SupervisorPid() != spare {
		t.Fatalf("supervisor %d, want the spare %d", p.SupervisorPid(), spare)
	}
	s.waitFor(t, "ready")
	testkit.WaitProcs(t, marker, 3)
	if err := p.KillAll(); err != nil {
		t.Fatal(err)
	}
	if ws := s.wait(t); ws.Signal() != syscall.SIGKILL || p.Lost() {
		t.Fatalf("status %v lost %v, want SIGKILL and a clean end", ws, p.Lost())
	}
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes survived: %v", left)
	}
}

// Close leaves no spare, and a pool closed starts programs all the same.
func TestSparesCloseLeavesNone(t *testing.T) {
	sp, helper := readySpares(t)
	spare := sp.SparePid()
	sp.Close()
	if isSpare(spare) {
		t.Fatalf("spare %d alive after Close", spare)
	}
	if err := syscall.Kill(spare, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("spare %d not reaped after Close: kill -0: %v", spare, err)
	}
	p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "true", Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if sp.SparePid() != 0 {
		t.Fatal("a closed pool started a spare")
	}
}

// A spare that died before it was claimed costs nothing but its use: the
// program starts through an exec'd supervisor.
func TestDeadSpareFallsBack(t *testing.T) {
	sp, helper := readySpares(t)
	spare := sp.SparePid()
	if err := syscall.Kill(spare, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Dead means a zombie or reaped: its descriptors are closed by then.
	// Its command line reads empty earlier, while it exits, and a claim
	// then could still reach its socket (an error, not a fallback).
	eventually(t, "the spare dead", func() bool { return hasExited(spare) })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "echo", Args: []string{"echo", "hi"}, Dir: "/", Stdout: w})
	_ = w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out := (&started{Process: p, out: r}).output(t); out != "hi\n" || p.SupervisorPid() == spare {
		t.Fatalf("output %q from supervisor %d (the dead spare was %d)", out, p.SupervisorPid(), spare)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
}

// A spare started by a process dies with it, however it dies (its report
// pipe; the spawner's life pipe): a runtime killed with SIGKILL leaves no
// spare behind, and no spawner.
func TestSpareDiesWithItsRuntime(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), holdSpareEnv+"="+testkit.SpawnHelper(t))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the spare's pid: %v (%q)", err, line)
	}
	var spare, spawner int
	if _, err := fmt.Sscan(line, &spare, &spawner); err != nil || spawner == 0 {
		t.Fatalf("no spare and spawner: %q (%v)", line, err)
	}
	// Its arguments read empty until its exec has laid them out.
	eventually(t, "the spare running", func() bool { return isSpare(spare) })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	eventually(t, "the spare gone with its runtime", func() bool { return !isSpare(spare) })
	eventually(t, "the spawner gone with its runtime", func() bool { return !isSpare(spawner) })
}

// Issue 16: a spare has no life pipe; it ends, unclaimed, once nobody
// holds its report pipe's read end (the runtime let it go, or died after
// the thread that started it, so that no parent-death signal comes).
func TestSpareEndsWhenItsReportReaderIsGone(t *testing.T) {
	reportR, reportW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	sv, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs := os.NewFile(uintptr(sv[0]), "spec"), os.NewFile(uintptr(sv[1]), "spec")
	defer mine.Close() // open all along: the spare must not end for want of a spec
	cmd := exec.Command(testkit.SpawnHelper(t), "--supervise", "--report", "3", "--spare", "4")
	cmd.ExtraFiles = []*os.File{reportW, theirs}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	_ = reportW.Close()
	_ = theirs.Close()
	eventually(t, "the spare waiting", func() bool { return isSpare(cmd.Process.Pid) })
	time.Sleep(50 * time.Millisecond) // it would have ended by now if it were going to on its own
	if hasExited(cmd.Process.Pid) {
		t.Fatal("the spare ended while its report pipe was read")
	}
	_ = reportR.Close()
	eventually(t, "the spare gone with its report pipe's reader", func() bool { return hasExited(cmd.Process.Pid) })
}

// holdSpareEnv makes the test binary a runtime that holds a ready spare of
// the helper the variable names, prints its pid and its spawner's and
// waits for ever.
const holdSpareEnv = "SPAWNHELPER_TEST_HOLD_SPARE"

func holdSpare(helper string) {
	sp := spawnhelper.NewSpares(helper)
	p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "true", Dir: "/"})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	_, _ = p.Wait()
	for sp.SparePid() == 0 {
		syscall.Nanosleep(&syscall.Timespec{Nsec: 1e6}, nil)
	}
	fmt.Println(sp.SparePid(), sp.SpawnerPid())
	select {}
}

// openTerminal opens a new pseudo-terminal: its master and slave sides.
func openTerminal(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(); _ = s.Close() })
	return m, s
}

// A program started on a terminal through a spare (what a persistent shell
// is in the shellport executable) has it as its controlling terminal and fds 0-2, as through
// Start.
func TestSpareStartsOnATerminal(t *testing.T) {
	sp, helper := readySpares(t)
	spare := sp.SparePid()
	master, slave := openTerminal(t)
	p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "bash", Dir: "/", TTY: slave,
		Args: []string{"bash", "--noprofile", "--norc", "-c", `t=$(tty); [ "$(readlink /proc/$$/fd/1)" = "$t" ] && [ "$(readlink /proc/$$/fd/2)" = "$t" ] && [ "$(ps -o tty= -p $$)" = "${t#/dev/}" ] && echo "on $t"; read -r line; echo "got $line"`}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.KillAll(); _, _ = p.Wait() })
	if p.SupervisorPid() != spare {
		t.Fatalf("supervisor %d, want the spare %d", p.SupervisorPid(), spare)
	}
	// The slave side stays open here until the output is read: a
	// terminal whose every slave is closed may fail the master's reads.
	if _, err := master.WriteString("hello\n"); err != nil {
		t.Fatal(err)
	}
	want := "on /dev/pts/"
	var got []byte
	buf := make([]byte, 1024)
	_ = master.SetReadDeadline(time.Now().Add(testWait))
	for !strings.Contains(string(got), "got hello") {
		n, err := master.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("terminal output ended (%v): %q", err, got)
		}
	}
	if !strings.Contains(string(got), want) {
		t.Fatalf("terminal output %q, want %q", got, want)
	}
	if st, err := p.Wait(); err != nil || !st.Success() {
		t.Fatalf("status %v %v", st, err)
	}
}
