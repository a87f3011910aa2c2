//go:build linux

package spawnhelper_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 16: a pool's spares are forked by its spawner, exec'd once, so
// that a spare's cost does not grow with the descriptors the runtime
// holds. A forked spare must be this process's child and behave exactly as
// an exec'd one (the spare tests above run through forked spares).

// ppidOf is pid's parent, or 0 when it cannot be read.
func ppidOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// cmdlineHas reports whether pid's command line holds the argument arg.
func cmdlineHas(pid int, arg string) bool {
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return bytes.Contains(cmdline, []byte("\x00"+arg+"\x00"))
}

// One spawner makes every spare; each is this process's child, forked (it
// runs the spawner's image: no exec), and runs its program as its
// supervisor.
func TestSparesAreForkedByOneSpawner(t *testing.T) {
	sp, helper := readySpares(t)
	spawner := sp.SpawnerPid()
	if spawner == 0 || ppidOf(spawner) != os.Getpid() {
		t.Fatalf("spawner %d, its parent %d; this process is %d", spawner, ppidOf(spawner), os.Getpid())
	}
	seen := map[int]bool{}
	for i := 0; i < 4; i++ {
		eventually(t, "a spare ready", func() bool { return sp.SparePid() != 0 })
		spare := sp.SparePid()
		if seen[spare] || spare == spawner {
			t.Fatalf("spare %d again (spawner %d)", spare, spawner)
		}
		seen[spare] = true
		if ppidOf(spare) != os.Getpid() || !cmdlineHas(spare, "--spawner") {
			t.Fatalf("spare %d: parent %d (want %d), forked by the spawner: %v", spare, ppidOf(spare), os.Getpid(), cmdlineHas(spare, "--spawner"))
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "bash", Args: []string{"bash", "-c", `echo "$PPID $X"`}, Env: []string{"PATH=" + os.Getenv("PATH"), "X=" + strconv.Itoa(i)}, Dir: "/", Stdout: w})
		_ = w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if p.SupervisorPid() != spare {
			t.Fatalf("started under %d, not the ready spare %d", p.SupervisorPid(), spare)
		}
		if out, want := (&started{Process: p, out: r}).output(t), strconv.Itoa(spare)+" "+strconv.Itoa(i)+"\n"; out != want {
			t.Fatalf("output %q, want %q", out, want)
		}
		if st, err := p.Wait(); err != nil || !st.Success() {
			t.Fatalf("%v %v", st, err)
		}
	}
	if sp.SpawnerPid() != spawner {
		t.Fatalf("spawner %d replaced by %d", spawner, sp.SpawnerPid())
	}
}

// Close ends the spawner and reaps it.
func TestSpawnerEndsWithClose(t *testing.T) {
	sp, _ := readySpares(t)
	spawner := sp.SpawnerPid()
	if spawner == 0 {
		t.Fatal("no spawner")
	}
	sp.Close()
	if err := syscall.Kill(spawner, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("spawner %d not gone after Close: kill -0: %v", spawner, err)
	}
	if sp.SpawnerPid() != 0 {
		t.Fatal("a closed pool names a spawner")
	}
}

// A spawner that died costs nothing but its use: the spare it made is
// still claimed, and later spares are exec'd.
func TestDeadSpawnerFallsBackToExec(t *testing.T) {
	sp, helper := readySpares(t)
	spawner := sp.SpawnerPid()
	if err := syscall.Kill(spawner, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "echo", Args: []string{"echo", "hi"}, Dir: "/", Stdout: w})
		_ = w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if out := (&started{Process: p, out: r}).output(t); out != "hi\n" {
			t.Fatalf("output %q", out)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a spare ready", func() bool { return sp.SparePid() != 0 })
	}
	if sp.SpawnerPid() != 0 {
		t.Fatalf("spawner %d after the first died", sp.SpawnerPid())
	}
	if spare := sp.SparePid(); !cmdlineHas(spare, "--spare") {
		t.Fatalf("spare %d was not exec'd", spare)
	}
	if err := syscall.Kill(spawner, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the dead spawner %d was not reaped: kill -0: %v", spawner, err)
	}
}

// The spawner refuses to run without what it needs, and starts nothing.
func TestSpawnerUsage(t *testing.T) {
	helper := testkit.SpawnHelper(t)
	for _, args := range [][]string{
		{"--spawner", "4"},
		{"--spawner", "4", "--life", "3"},
		{"--spawner", "4", "--life", "3", "--parent", "1", "/", "true"},
		{"--spawner", "4", "--life", "3", "--parent", "1", "--supervise"},
	} {
		out, err := exec.Command(helper, args...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 127 || !strings.Contains(string(out), "--spawner takes") {
			t.Errorf("%q: %v, %q", args, err, out)
		}
	}
}

// Many starts at once each get a spare forked for them, none an exec'd
// supervisor: an exec's cost grows with this process's descriptors.
func TestManyStartsAtOnceAreForked(t *testing.T) {
	sp, helper := readySpares(t)
	const n = 16
	type result struct {
		supervisor int
		err        error
	}
	results := make(chan result, n)
	release := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			<-release
			p, err := sp.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "sleep", Args: []string{"sleep", "60"}, Dir: "/"})
			if err != nil {
				results <- result{err: err}
				return
			}
			t.Cleanup(func() { _ = p.KillAll(); _, _ = p.Wait() })
			results <- result{supervisor: p.SupervisorPid()}
		}()
	}
	close(release)
	for i := 0; i < n; i++ {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		if !cmdlineHas(r.supervisor, "--spawner") || ppidOf(r.supervisor) != os.Getpid() {
			t.Errorf("supervisor %d was not forked by the spawner (parent %d)", r.supervisor, ppidOf(r.supervisor))
		}
	}
}

// noCloneParentEnv makes the test binary refuse itself clone with
// CLONE_PARENT through a seccomp filter, start three programs through a
// pool and print how many ran and the pool's spawner pid.
const noCloneParentEnv = "SPAWNHELPER_TEST_NO_CLONE_PARENT"

func init() {
	hooks = append(hooks, func() {
		if helper := os.Getenv(noCloneParentEnv); helper != "" {
			startWithoutCloneParent(helper)
		}
	})
}

func startWithoutCloneParent(helper string) {
	and := uint16(unix.BPF_ALU | unix.BPF_AND | unix.BPF_K)
	denyInThisProcess([]unix.SockFilter{
		{Code: bpfLoad, K: 0}, // seccomp_data.nr
		{Code: bpfJumpIfEqual, Jt: 0, Jf: 4, K: unix.SYS_CLONE},
		{Code: bpfLoad, K: 16}, // the flags' low half (little-endian)
		{Code: and, K: unix.CLONE_PARENT},
		{Code: bpfJumpIfEqual, Jt: 0, Jf: 1, K: unix.CLONE_PARENT},
		{Code: bpfReturn, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: bpfReturn, K: unix.SECCOMP_RET_ALLOW},
	})
	sp := spawnhelper.NewSpares(helper)
	ran := startTrues(sp.Start, helper, 3)
	fmt.Println(ran, sp.SpawnerPid())
	sp.Close()
	os.Exit(0)
}

// A spawner that may not fork with CLONE_PARENT (a seccomp filter) is
// given up at its first refusal; every program still starts.
func TestRefusedSpawnerIsGivenUp(t *testing.T) {
	if got := hookOutput(t, noCloneParentEnv); got != "3 0\n" {
		t.Fatalf("programs run and the spawner's pid: %q, want %q", got, "3 0\n")
	}
}

// The classic BPF instructions the seccomp filters of these tests use.
const (
	bpfLoad        = uint16(unix.BPF_LD | unix.BPF_W | unix.BPF_ABS)
	bpfJumpIfEqual = uint16(unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K)
	bpfReturn      = uint16(unix.BPF_RET | unix.BPF_K)
)

// denyInThisProcess applies the seccomp filter prog to every thread of
// this process (a test binary run by hookOutput), or exits saying why.
func denyInThisProcess(prog []unix.SockFilter) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		fmt.Println("error", errno)
		os.Exit(1)
	}
}

// startTrues starts n supervised `true`s through start, one after
// another, and returns how many ran to success; it exits on a failed
// start (a test binary run by hookOutput).
func startTrues(start func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error), helper string, n int) int {
	ran := 0
	for i := 0; i < n; i++ {
		p, err := start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "true", Dir: "/"})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if st, err := p.Wait(); err == nil && st.Success() {
			ran++
		}
	}
	return ran
}

// hookOutput runs this test binary in the role env names (see
// TestMain's hooks), given the spawn helper, through wrap (a shell
// command that ends by exec'ing "$0" -test.run '^$'; none when empty),
// and returns what it printed.
func hookOutput(t *testing.T, env string, wrap ...string) string {
	t.Helper()
	argv := []string{os.Args[0], "-test.run", "^$"}
	if len(wrap) > 0 {
		argv = append([]string{"bash", "-c", wrap[0]}, os.Args[0])
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env+"="+testkit.SpawnHelper(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return string(out)
}
