//go:build linux

package spawnhelper_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 16: the supervisor finds what to kill by walking its own subtree
// (/proc/PID/task/TID/children, from itself down: a subreaper's escapees
// are its children) instead of scanning every process on the machine, and
// falls back to the scan on kernels without children files. Each tree
// below must be gone, counted by processes, once the session is closed,
// with either way of finding it.

// threadForkEnv makes the test binary the multi-threaded program of
// TestSessionCloseKillsTrees: a thread other than the main one starts
// `sleep MARKER` and the program prints that thread's id and the child's
// pid, then waits for ever.
const threadForkEnv = "SPAWNHELPER_TEST_THREAD_FORK"

func TestMain(m *testing.M) {
	if marker := os.Getenv(threadForkEnv); marker != "" {
		threadFork(marker)
	}
	if helper := os.Getenv(holdSpareEnv); helper != "" {
		holdSpare(helper)
	}
	testMainHooks()
	os.Exit(m.Run())
}

func threadFork(marker string) {
	for {
		said := make(chan string)
		go func() {
			runtime.LockOSThread() // never unlocked: no other goroutine runs here
			if unix.Gettid() == os.Getpid() {
				said <- "" // the main thread: try again on another
				return
			}
			cmd := exec.Command("sleep", marker)
			if err := cmd.Start(); err != nil {
				said <- "error " + err.Error()
				return
			}
			said <- fmt.Sprintf("%d %d", unix.Gettid(), cmd.Process.Pid)
			select {} // the thread stays: its child is listed under it
		}()
		if line := <-said; line != "" {
			fmt.Println(line)
			select {}
		}
	}
}

// walkers runs test once with each way the supervisor finds its
// descendants.
func walkers(t *testing.T, test func(t *testing.T)) {
	for _, scan := range []bool{false, true} {
		name := "subtree"
		if scan {
			name = "proc-scan"
		}
		t.Run(name, func(t *testing.T) {
			defer spawnhelper.SetSweepScanAll(scan)()
			test(t)
		})
	}
}

// closeAndCount ends the session the way the runtime does (KillAll) and
// checks that no process with marker is left and that the supervisor
// itself killed everything (its "end" report), not the runtime's fallback.
func closeAndCount(t *testing.T, p *started, marker string) {
	t.Helper()
	if err := p.KillAll(); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("%d processes outlived the session: %v", len(left), left)
	}
	if p.Lost() {
		t.Fatal("the supervisor did not report a clean end: something outlived its sweep")
	}
}

func TestSessionCloseKillsTrees(t *testing.T) {
	t.Run("deep chain of 50 nested forks", func(t *testing.T) {
		walkers(t, func(t *testing.T) {
			marker := testkit.Marker()
			t.Cleanup(func() { testkit.KillProcs(marker) })
			// Each level forks the next, then becomes a sleep: a chain of
			// 51 sleeps, each the parent of the next.
			p := bash(t, `d() { if [ "$1" -gt 0 ]; then d $(($1 - 1)) & fi; exec sleep `+marker+` </dev/null >/dev/null 2>&1; }
d 50 &
echo started; wait`)
			p.waitFor(t, "started")
			testkit.WaitProcs(t, marker, 51)
			closeAndCount(t, p, marker)
		})
	})
	t.Run("wide tree of 200 children", func(t *testing.T) {
		walkers(t, func(t *testing.T) {
			marker := testkit.Marker()
			t.Cleanup(func() { testkit.KillProcs(marker) })
			p := bash(t, `for ((i = 0; i < 200; i++)); do sleep `+marker+` </dev/null >/dev/null 2>&1 & done
echo started; wait`)
			p.waitFor(t, "started")
			testkit.WaitProcs(t, marker, 200)
			closeAndCount(t, p, marker)
		})
	})
	t.Run("setsid and double-fork escapees", func(t *testing.T) {
		walkers(t, func(t *testing.T) {
			marker := testkit.Marker()
			t.Cleanup(func() { testkit.KillProcs(marker) })
			// setsid, then a double fork inside the new session, then
			// setsid again: the sleep's parents are all gone, so it is
			// the supervisor's child, in a session of its own.
			p := bash(t, `setsid bash --noprofile --norc -c '(setsid sleep `+marker+` </dev/null >/dev/null 2>&1 &)' </dev/null >/dev/null 2>&1 &
first=$!
`+testkit.Escapes(marker)+`
wait $first; echo escaped; exec sleep `+marker)
			p.waitFor(t, "escaped")
			testkit.WaitProcs(t, marker, testkit.EscapeKinds+2)
			closeAndCount(t, p, marker)
		})
	})
	t.Run("a thread's child", func(t *testing.T) {
		walkers(t, func(t *testing.T) {
			marker := testkit.Marker()
			t.Cleanup(func() { testkit.KillProcs(marker) })
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			p := start(t, spawnhelper.Spec{Env: append(os.Environ(), threadForkEnv+"="+marker)}, self, marker)
			line, err := bufio.NewReader(p.out).ReadString('\n')
			f := strings.Fields(line)
			if err != nil || len(f) != 2 || f[0] == "error" {
				t.Fatalf("the threaded program said %q (%v)", line, err)
			}
			tid, child := f[0], f[1]
			testkit.WaitProcs(t, marker, 2)
			// The case under test: the sleep is listed under the thread
			// that started it, not under the process's main thread.
			prog := strconv.Itoa(p.Pid())
			if tid == prog {
				t.Fatalf("the child was started from the main thread (%s)", tid)
			}
			listed, _ := os.ReadFile("/proc/" + prog + "/task/" + tid + "/children")
			if !strings.Contains(" "+string(listed), " "+child+" ") {
				t.Fatalf("thread %s lists children %q, want %s", tid, listed, child)
			}
			closeAndCount(t, p, marker)
		})
	})
	t.Run("fork bomb bounded by ulimit -u", func(t *testing.T) {
		walkers(t, func(t *testing.T) {
			marker := testkit.Marker()
			t.Cleanup(func() { testkit.KillProcs(marker) })
			// Root is exempt from RLIMIT_NPROC: as root the bomb runs as
			// nobody. The limit counts every task of the user, so it is
			// set to the tasks that user already runs (counted in /proc)
			// plus 200.
			user, drop := os.Geteuid(), ""
			if user == 0 {
				user, drop = 65534, "setpriv --reuid=65534 --regid=65534 --clear-groups"
			}
			bomb := `b() { while :; do b & sleep 0.01; done; }; b`
			p := start(t, spawnhelper.Spec{Dir: "/"}, "bash", "--noprofile", "--norc", "-c",
				`ulimit -u $(($(grep -ls "^Uid:[[:space:]]*`+strconv.Itoa(user)+`[[:space:]]" /proc/[0-9]*/task/[0-9]*/status | wc -l) + 200)) || exit 1
echo started
exec `+drop+` bash --noprofile --norc -c "$1" "$0" 2>/dev/null`, marker, bomb)
			p.waitFor(t, "started")
			testkit.WaitProcs(t, marker, 50)
			closeAndCount(t, p, marker)
		})
	})
}

// Issue 16: a live supervisor holds one descriptor, its report pipe: its
// standard descriptors are closed, not kept open on /dev/null; it catches
// its signals with handlers around ppoll, not with a signalfd; and it
// learns the runtime's death from the report pipe, with no life pipe.
func TestSupervisorHoldsOneDescriptor(t *testing.T) {
	marker := testkit.Marker()
	p := start(t, spawnhelper.Spec{}, "sleep", marker)
	testkit.WaitProcs(t, marker, 1)
	var got []int
	eventually(t, "the supervisor's descriptors settled at one", func() bool {
		got = fds(t, p.SupervisorPid())
		return len(got) == 1
	})
	if target, _ := os.Readlink("/proc/" + strconv.Itoa(p.SupervisorPid()) + "/fd/" + strconv.Itoa(got[0])); !strings.HasPrefix(target, "pipe:") {
		t.Errorf("fd %d is %s, want the report pipe", got[0], target)
	}
}

// hooks are further TestMain roles of the test binary, set by files
// built only in some configurations.
var hooks []func()

func testMainHooks() {
	for _, h := range hooks {
		h()
	}
}
