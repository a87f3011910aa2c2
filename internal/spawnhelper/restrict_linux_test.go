//go:build linux

package spawnhelper_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/testkit"
)

// The sandbox seam (issue 12 will build the policy): the helper applies a
// Landlock ruleset and a seccomp program it is handed as descriptors, in
// the program's process only, and closes both before the exec.

// runRestricted runs script under a supervisor with the given restriction
// options (their descriptors arrive as fds 3 and up) and returns its
// combined output.
func runRestricted(t *testing.T, args []string, files []*os.File, script string) string {
	t.Helper()
	argv := append(append([]string{"--supervise"}, args...), "--", "", "/bin/sh", "-c", script)
	cmd := exec.Command(testkit.SpawnHelper(t), argv...)
	cmd.ExtraFiles = files
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return string(out)
}

// landlockDenyingWrites is a ruleset that handles file writes and creation
// and allows them nowhere.
func landlockDenyingWrites(t *testing.T) *os.File {
	t.Helper()
	attr := unix.LandlockRulesetAttr{Handled_access_fs: unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_REG}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		t.Skipf("no Landlock here: %v", errno)
	}
	return os.NewFile(fd, "landlock-ruleset")
}

// seccompDenyingMkdir is a BPF program that fails mkdir and mkdirat with
// EPERM and allows everything else (native architecture only: a test).
func seccompDenyingMkdir(t *testing.T) *os.File {
	t.Helper()
	nrs := []uint32{unix.SYS_MKDIRAT}
	if runtime.GOARCH == "amd64" {
		nrs = append(nrs, 83) // mkdir
	}
	ld := func(k uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: k}
	}
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	prog := []unix.SockFilter{ld(0)} // seccomp_data.nr
	for i, nr := range nrs {
		// Jump to the EPERM return (after the remaining checks and ALLOW).
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: nr, Jt: uint8(len(nrs) - i)})
	}
	prog = append(prog, ret(unix.SECCOMP_RET_ALLOW), ret(unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM)))
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.NativeEndian, prog); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "filter.bpf")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func TestLandlockRulesetIsApplied(t *testing.T) {
	ruleset := landlockDenyingWrites(t)
	defer ruleset.Close()
	dir := t.TempDir()
	target := filepath.Join(dir, "written")
	out := runRestricted(t, []string{"--landlock-ruleset", "3"}, []*os.File{ruleset},
		`echo x > `+target+` && echo wrote; ls -l /proc/self/fd`)
	if _, err := os.Stat(target); err == nil || strings.Contains(out, "wrote") {
		t.Fatalf("the restricted program could write %s: %q", target, out)
	}
	if got := inherited(out); got != "0 1 2" {
		t.Fatalf("the ruleset's descriptor reached the program: fds %q", got)
	}
	// Unrestricted, the same command writes: the denial is the ruleset's.
	if out := runRestricted(t, nil, nil, `echo x > `+target+` && echo wrote`); !strings.Contains(out, "wrote") {
		t.Fatalf("unrestricted: %q", out)
	}
}

func TestSeccompFilterIsApplied(t *testing.T) {
	dir := t.TempDir()
	out := runRestricted(t, []string{"--seccomp-filter", "3"}, []*os.File{seccompDenyingMkdir(t)},
		`mkdir `+filepath.Join(dir, "made")+` 2>&1; ls -l /proc/self/fd`)
	if !strings.Contains(out, "Operation not permitted") {
		t.Fatalf("mkdir was not refused: %q", out)
	}
	if got := inherited(out); got != "0 1 2" {
		t.Fatalf("the filter's descriptor reached the program: fds %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Fatal("the directory was made")
	}
}

// A restriction the kernel refuses is a start failure, not a program that
// runs unrestricted.
func TestRefusedRestrictionFailsTheStart(t *testing.T) {
	empty, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	out := runRestricted(t, []string{"--report", "2", "--seccomp-filter", "3"}, []*os.File{empty}, `echo ran`)
	if strings.Contains(out, "ran") || !strings.Contains(out, "error restrict") {
		t.Fatalf("an empty seccomp program did not fail the start: %q", out)
	}
}

// inherited reads `ls -l /proc/self/fd` output: the descriptors ls had,
// without the one it opened to read the listing.
func inherited(listing string) string {
	var fds []string
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[len(f)-2] != "->" {
			continue
		}
		if target := f[len(f)-1]; strings.HasPrefix(target, "/proc/") && strings.HasSuffix(target, "/fd") {
			continue
		}
		fds = append(fds, f[len(f)-3])
	}
	return strings.Join(fds, " ")
}
