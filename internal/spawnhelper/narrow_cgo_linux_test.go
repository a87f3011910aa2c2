//go:build linux && cgo

package spawnhelper_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 16: a supervisor is started narrowly (its process keeps a copy of
// this process's lowest descriptors only); it must get exactly what
// syscall.StartProcess gives it, and nothing more, however many
// descriptors this process holds and whatever their flags.

// holdDescriptors opens n more descriptors on /dev/null, every other one
// without close-on-exec (a host's careless open), closed at cleanup.
func holdDescriptors(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		flags := unix.O_RDONLY
		if i%2 == 0 {
			flags |= unix.O_CLOEXEC
		}
		fd, err := unix.Open(os.DevNull, flags, 0)
		if err != nil {
			t.Fatalf("hold %d descriptors: %v", n, err)
		}
		t.Cleanup(func() { _ = unix.Close(fd) })
	}
}

// fdsOf lists pid's descriptors.
func fdsOf(t *testing.T, pid int) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// What the program and its supervisor hold is the same both ways, with
// 3,000 more descriptors here, half of them inheritable: the program has
// 0-2 and fd 3, the supervisor its life and report pipes.
func TestNarrowStartHoldsWhatStartProcessGives(t *testing.T) {
	helper := testkit.SpawnHelper(t)
	holdDescriptors(t, 3000)
	fd3, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer fd3.Close()
	portrait := func(narrow bool) (program, supervisor string) {
		defer spawnhelper.SetNarrow(narrow)()
		before := spawnhelper.NarrowStarted()
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{
			Helper: helper, Path: "bash", Dir: "/", Stdout: w, FD3: fd3,
			Args: []string{"bash", "-c", "ls /proc/self/fd | sort | tr '\\n' ' '; grep -E '^(Sig(Blk|Ign)|Max open)' /proc/self/status /proc/self/limits | tr -s ' '; read -r"},
		})
		_ = w.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = p.KillAll(); _, _ = p.Wait() }()
		if got := spawnhelper.NarrowStarted() - before; got != map[bool]int{true: 1, false: 0}[narrow] {
			t.Fatalf("narrow %v: %d started narrowly", narrow, got)
		}
		supervisor = strings.Join(fdsOf(t, p.SupervisorPid()), " ")
		buf := make([]byte, 4096)
		n, _ := r.Read(buf)
		_ = r.Close()
		return string(buf[:n]), supervisor
	}
	// The first start of the process is never narrow (it learns the
	// limit Go gives children); this one is whichever way it goes.
	portrait(false)
	wantProgram, wantSupervisor := portrait(false)
	gotProgram, gotSupervisor := portrait(true)
	if gotProgram != wantProgram || gotSupervisor != wantSupervisor {
		t.Fatalf("narrow start:\n program %q\n supervisor fds %q\nsyscall.StartProcess:\n program %q\n supervisor fds %q",
			gotProgram, gotSupervisor, wantProgram, wantSupervisor)
	}
	if !strings.HasPrefix(gotProgram, "0 1 2 3 ") || len(strings.Fields(gotSupervisor)) != 1 {
		t.Fatalf("program %q, supervisor fds %q", gotProgram, gotSupervisor)
	}
}

// nofileEnv makes the test binary print the soft RLIMIT_NOFILE of a
// program started the usual way, then of one started narrowly, and exit;
// the test runs it with a soft limit below the hard one, which Go raised
// at its start and gives back to the children it starts.
const nofileEnv = "SPAWNHELPER_TEST_NOFILE"

func printChildNofile(helper string) {
	for i := 0; i < 2; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "bash", Args: []string{"bash", "-c", "ulimit -Sn"}, Dir: "/", Stdout: w})
		_ = w.Close()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		buf := make([]byte, 64)
		n, _ := r.Read(buf)
		_, _ = p.Wait()
		fmt.Printf("%s %d\n", strings.TrimSpace(string(buf[:n])), spawnhelper.NarrowStarted())
	}
	os.Exit(0)
}

func TestNarrowStartGivesBackTheSoftFileLimit(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Max < 512 {
		t.Skipf("hard RLIMIT_NOFILE %d (%v)", lim.Max, err)
	}
	if got := hookOutput(t, nofileEnv, `ulimit -Sn 256 && exec "$0" -test.run '^$'`); got != "256 0\n256 1\n" {
		t.Fatalf("soft limit of a child started the usual way, then narrowly, and the narrow count: %q, want %q", got, "256 0\n256 1\n")
	}
}

func init() {
	hooks = append(hooks, func() {
		if helper := os.Getenv(nofileEnv); helper != "" {
			printChildNofile(helper)
		}
		if helper := os.Getenv(noCloseRangeEnv); helper != "" {
			startWithoutCloseRange(helper)
		}
	})
}

// noCloseRangeEnv makes the test binary refuse itself close_range with a
// seccomp filter (as older container profiles do), start three programs
// and print how many started, how many of them narrowly, and whether
// narrow starts were turned off.
const noCloseRangeEnv = "SPAWNHELPER_TEST_NO_CLOSE_RANGE"

func startWithoutCloseRange(helper string) {
	denyInThisProcess([]unix.SockFilter{
		{Code: bpfLoad, K: 0}, // seccomp_data.nr
		{Code: bpfJumpIfEqual, Jt: 0, Jf: 1, K: unix.SYS_CLOSE_RANGE},
		{Code: bpfReturn, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: bpfReturn, K: unix.SECCOMP_RET_ALLOW},
	})
	ok := startTrues(spawnhelper.Start, helper, 3)
	fmt.Println(ok, spawnhelper.NarrowStarted(), spawnhelper.NarrowOff())
	os.Exit(0)
}

// A process that may not call close_range (a seccomp filter) starts all
// its programs, the usual way, and stops trying narrow starts after the
// first refusal.
func TestNarrowStartRefusedFallsBack(t *testing.T) {
	if got := hookOutput(t, noCloseRangeEnv); got != "3 0 true\n" {
		t.Fatalf("started, started narrowly, turned off: %q, want %q", got, "3 0 true\n")
	}
}

// BenchmarkStartWithDescriptors starts a supervised `true` and waits for
// it, narrowly and through syscall.StartProcess, while this process holds
// more and more descriptors: a library host with 2,048 live sessions
// holds about 10,000.
func BenchmarkStartWithDescriptors(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	var held []int
	defer func() {
		for _, fd := range held {
			_ = unix.Close(fd)
		}
	}()
	start := func(b *testing.B) {
		p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "/bin/true", Dir: "/"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	for _, extra := range []int{0, 2000, 10000} {
		for len(held) < extra {
			fd, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				b.Skipf("hold %d descriptors: %v", extra, err)
			}
			held = append(held, fd)
		}
		for _, narrow := range []bool{false, true} {
			b.Run(fmt.Sprintf("held=%d/narrow=%v", extra, narrow), func(b *testing.B) {
				defer spawnhelper.SetNarrow(narrow)()
				start(b) // the first start of the process is the usual way
				for b.Loop() {
					start(b)
				}
			})
		}
	}
}

// A host that closes the socket pair's descriptors and opens sockets of
// its own at their numbers loses nothing: the next start makes a new pair,
// sends nothing to the host's peer and takes nothing from its queue.
func TestNarrowStartSurvivesAHostClosingItsSockets(t *testing.T) {
	helper := testkit.SpawnHelper(t)
	start := func() {
		t.Helper()
		p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "true", Dir: "/"})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := p.Wait(); err != nil || !st.Success() {
			t.Fatalf("%v %v", st, err)
		}
	}
	start()
	start()
	send, recv := spawnhelper.NarrowPair()
	if send < 0 || recv < 0 {
		t.Fatal("no socket pair after two starts")
	}
	hostPair := func() (mine, peer int) {
		sv, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = unix.Close(sv[1]) })
		return sv[0], sv[1]
	}
	// The host's sockets at the pair's numbers: one whose peer would get
	// what the runtime sends, one holding a message of the host's.
	out, outPeer := hostPair()
	in, inPeer := hostPair()
	if _, err := unix.Write(inPeer, []byte("host's")); err != nil {
		t.Fatal(err)
	}
	for _, d := range [][2]int{{out, send}, {in, recv}} {
		if err := unix.Dup3(d[0], d[1], unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		_ = unix.Close(d[0])
		t.Cleanup(func() { _ = unix.Close(d[1]) })
	}
	before := spawnhelper.NarrowStarted()
	p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "true", Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	// Checked before the wait: descriptors sent to the host's peer would
	// keep the report pipe open, and the wait from ending, until closed.
	buf, oob := make([]byte, 16), make([]byte, unix.CmsgSpace(64*4))
	if n, oobn, _, _, err := unix.Recvmsg(outPeer, buf, oob, unix.MSG_DONTWAIT); err != unix.EAGAIN {
		if msgs, perr := unix.ParseSocketControlMessage(oob[:max(oobn, 0)]); perr == nil {
			for _, m := range msgs {
				fds, _ := unix.ParseUnixRights(&m)
				for _, fd := range fds {
					_ = unix.Close(fd)
				}
			}
		}
		t.Errorf("the host's peer got %q and %d bytes of descriptors (%v)", buf[:max(n, 0)], oobn, err)
	}
	if n, err := unix.Read(recv, buf); err != nil || string(buf[:n]) != "host's" {
		t.Errorf("the host's message: %q (%v)", buf[:max(n, 0)], err)
	}
	if st, err := p.Wait(); err != nil || !st.Success() {
		t.Fatalf("%v %v", st, err)
	}
	if spawnhelper.NarrowStarted() != before+1 {
		t.Fatal("the start after the host took the pair's numbers was not narrow")
	}
}
