//go:build linux

package sandbox

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
)

// These tests run the real spawn helper with the restrictions a policy
// builds, on this kernel: what the kernel refuses is what a sandboxed
// command meets. Paths outside the writable set sit in a directory the
// policy does not name (the temporary directories are off).

// needLandlock skips on a machine that cannot enforce a policy.
func needLandlock(t *testing.T) {
	t.Helper()
	if s := Probe(); s.Backend != BackendLandlock || !s.Seccomp {
		t.Skipf("no Landlock (ABI 3+) and seccomp here on %s: %s", "linux", s.Reason)
	}
}

// confined runs script with bash under the helper, restricted by p.
func confined(t *testing.T, p *Policy, dir, script string) (string, int) {
	t.Helper()
	r, err := p.Restrictions()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	args := []string{"--supervise"}
	var files []*os.File
	if r.Landlock != nil {
		args = append(args, "--landlock-ruleset", strconv.Itoa(3+len(files)))
		files = append(files, r.Landlock)
	}
	if r.Seccomp != nil {
		args = append(args, "--seccomp-filter", strconv.Itoa(3+len(files)))
		files = append(files, r.Seccomp)
	}
	args = append(args, "--", dir, "bash", "--noprofile", "--norc", "-c", script)
	cmd := exec.Command(testkit.SpawnHelper(t), args...)
	cmd.ExtraFiles = files
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func workspace(t *testing.T, extra ...string) (p *Policy, ws, out string) {
	t.Helper()
	needLandlock(t)
	ws, out = t.TempDir(), t.TempDir()
	p, err := Resolve(Request{Session: &Config{Mode: ModeWorkspaceWrite, WritableTmp: off(), WritableRoots: extra}, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	return p, ws, out
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 12: every way of writing outside the writable set fails, as the
// command's own failure, and the same operations inside succeed.
func TestWritesOutsideFailInsideSucceed(t *testing.T) {
	p, ws, out := workspace(t)
	for _, dir := range []string{ws, out} {
		writeFile(t, filepath.Join(dir, "old"), "old\n")
		writeFile(t, filepath.Join(dir, "keep"), "keep\n")
	}
	attempt := func(dir, other string) string {
		return strings.Join([]string{
			`try() { if eval "$2" 2>/dev/null; then echo "$1:ok"; else echo "$1:denied"; fi; }`,
			`try new "echo x > ` + dir + `/new"`,
			`try append "echo x >> ` + dir + `/old"`,
			`try truncate "truncate -s 0 ` + dir + `/keep"`,
			`try rename-out "mv ` + dir + `/old ` + other + `/moved"`,
			`try hardlink "ln ` + other + `/keep ` + dir + `/hl"`,
			`try symlink "ln -s ` + other + `/keep ` + dir + `/sl && echo x >> ` + dir + `/sl"`,
			`try procroot "echo x > /proc/self/root` + dir + `/viaproc"`,
			`try mkdir "mkdir ` + dir + `/d"`,
			`try rm "rm ` + dir + `/keep"`,
		}, "\n")
	}
	got, _ := confined(t, p, ws, attempt(out, ws))
	for _, op := range []string{"new", "append", "truncate", "rename-out", "hardlink", "procroot", "mkdir", "rm"} {
		if !strings.Contains(got, op+":denied") {
			t.Errorf("outside: %s was not denied:\n%s", op, got)
		}
	}
	if readFile(t, filepath.Join(out, "old")) != "old\n" || readFile(t, filepath.Join(out, "keep")) != "keep\n" {
		t.Error("a file outside changed")
	}
	for _, name := range []string{"new", "viaproc", "d", "hl"} {
		if _, err := os.Lstat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s was made outside", name)
		}
	}
	// The symbolic link pointing out may be made; writing through it may not.
	if !strings.Contains(got, "symlink:denied") {
		t.Errorf("a write through a link pointing out was not denied:\n%s", got)
	}

	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "sub", "keep"), "keep\n")
	got, _ = confined(t, p, ws, attempt(ws, ws+"/sub"))
	for _, op := range []string{"new", "append", "truncate", "rename-out", "hardlink", "symlink", "procroot", "mkdir", "rm"} {
		if !strings.Contains(got, op+":ok") {
			t.Errorf("inside: %s failed:\n%s", op, got)
		}
	}
}

// A denied write reads as the command's own failure: bash says
// "Permission denied" and the status is bash's.
func TestDeniedWriteIsTheCommandsFailure(t *testing.T) {
	p, ws, out := workspace(t)
	got, code := confined(t, p, ws, `echo x > `+out+`/f`)
	if code != 1 || !strings.Contains(got, out+"/f: Permission denied") {
		t.Fatalf("status %d, output %q", code, got)
	}
	got, code = confined(t, p, ws, `echo hi; echo err >&2; echo x > /dev/null; printf t > /dev/stdout; printf 2 > /dev/stderr`)
	if code != 0 || got != "hi\nerr\nt2" {
		t.Fatalf("the standard descriptors and /dev/null: status %d, %q", code, got)
	}
}

// Issue 12: with network off, TCP (MPTCP too), UDP and IPv6 sockets fail,
// and AF_UNIX works; with network on they work.
func TestNetworkOffBlocksIPSockets(t *testing.T) {
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skipf("no /usr/bin/python3: %v", err)
	}
	needLandlock(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	ws := t.TempDir()
	script := py + ` -c '
import socket
def probe(name, fam, typ, proto, addr):
    try:
        s = socket.socket(fam, typ, proto)
        if addr is not None:
            s.connect(addr)
        print(name + ":ok")
    except OSError as e:
        print(name + ":denied:" + str(e.errno))
probe("tcp", socket.AF_INET, socket.SOCK_STREAM, 0, ("127.0.0.1", ` + strconv.Itoa(port) + `))
probe("mptcp", socket.AF_INET, socket.SOCK_STREAM, 262, ("127.0.0.1", ` + strconv.Itoa(port) + `))
probe("udp", socket.AF_INET, socket.SOCK_DGRAM, 0, ("127.0.0.1", 9))
probe("tcp6", socket.AF_INET6, socket.SOCK_STREAM, 0, None)
probe("unix", socket.AF_UNIX, socket.SOCK_STREAM, 0, None)
a, b = socket.socketpair()
print("socketpair:ok")
'`
	off, err := Resolve(Request{Session: &Config{Mode: ModeReadOnly}, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := confined(t, off, ws, script)
	for _, want := range []string{"tcp:denied:1", "mptcp:denied:1", "udp:denied:1", "tcp6:denied:1", "unix:ok", "socketpair:ok"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("network off: want %s in\n%s", want, got)
		}
	}
	onP, err := Resolve(Request{Session: &Config{Mode: ModeReadOnly, Network: on()}, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = confined(t, onP, ws, script)
	for _, want := range []string{"tcp:ok", "udp:ok", "tcp6:ok", "unix:ok"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("network on: want %s in\n%s", want, got)
		}
	}
}

// Issue 12, escape attempts: a new user or mount namespace keeps the
// restrictions, mounting is refused, io_uring is refused, the runtime
// cannot be traced or signalled, and the supervisor cannot be killed.
func TestEscapeAttemptsFail(t *testing.T) {
	p, ws, out := workspace(t)
	self := strconv.Itoa(os.Getpid())
	script := strings.Join([]string{
		`try() { if eval "$2" >/dev/null 2>&1; then echo "$1:escaped"; else echo "$1:held"; fi; }`,
		`try unshare-user "unshare -r sh -c 'echo x > ` + out + `/u'"`,
		`try unshare-mount "unshare -m sh -c 'mount -t tmpfs none ` + out + ` && echo x > ` + out + `/m'"`,
		`try mount "mount -t tmpfs none ` + out + `"`,
		`try bind "mount --bind ` + ws + ` ` + out + `"`,
		`try mem "head -c 1 /proc/` + self + `/mem 2>&1 | grep -v 'Permission denied'"`,
		`try fd "ls -l /proc/` + self + `/fd/ 2>&1 | grep -v 'Permission denied' | grep -q -- '->'"`,
		`try signal "kill -0 ` + self + `"`,
		`try supervisor "kill -0 $PPID"`,
	}, "\n")
	if py, err := exec.LookPath("/usr/bin/python3"); err == nil {
		// PTRACE_SEIZE (0x4206) attaches without stopping the target.
		script += "\n" + `try ptrace "` + py + ` -c 'import ctypes,sys; sys.exit(0 if ctypes.CDLL(None).ptrace(0x4206, ` + self + `, 0, 0) == 0 else 1)'"` +
			"\n" + `try io_uring "` + py + ` -c 'import ctypes,sys; p=(ctypes.c_char*120)(); r=ctypes.CDLL(None,use_errno=True).syscall(425, 4, p); sys.exit(0 if r >= 0 else 1)'"`
	}
	got, _ := confined(t, p, ws, script)
	if strings.Contains(got, "escaped") {
		t.Fatalf("an escape worked:\n%s", got)
	}
	if n := strings.Count(got, ":held"); n < 8 {
		t.Fatalf("only %d attempts ran:\n%s", n, got)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("files appeared outside: %v", ents)
	}
	// Unconfined, the signal and trace probes work (as root or as the
	// runtime's own user): the refusals above are the sandbox's.
	full, err := Resolve(Request{Session: &Config{Mode: ModeFullAccess}, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := confined(t, full, ws, `kill -0 `+self+` && kill -0 $PPID && ls -l /proc/`+self+`/fd/ | grep -q -- '->' && echo free`); !strings.Contains(got, "free") {
		t.Fatalf("unconfined probes failed: %q", got)
	}
}
