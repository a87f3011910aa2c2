package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/pty"
	"golang.org/x/sys/unix"
)

// buildHelper builds this command into a temporary directory.
func buildHelper(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("the spawn helper's checks read /proc; not on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	path := filepath.Join(t.TempDir(), "shellport-spawn-helper")
	cmd := exec.Command("go", "build", "-o", path, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}

// runOnTerminal starts PROGRAM through the helper on a fresh terminal,
// reads the terminal to EOF and returns the output and status.
func runOnTerminal(t *testing.T, helper, dir string, argv ...string) (string, pty.ExitStatus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := pty.Start(ctx, pty.Options{Path: argv[0], Args: argv[1:], Dir: dir, SpawnHelper: helper})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { defer close(done); _, _ = out.ReadFrom(p) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("terminal never reached EOF; output so far %q", out.String())
	}
	st, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), st
}

func TestHelperFailureIsOneLineAnd127(t *testing.T) {
	helper := buildHelper(t)
	missing := filepath.Join(t.TempDir(), "missing")
	out, st := runOnTerminal(t, helper, missing, "/bin/true")
	if st.Code != failStatus {
		t.Fatalf("status %+v, want %d", st, failStatus)
	}
	if !strings.HasPrefix(out, "shellport-spawn-helper: chdir ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("output %q, want one shellport-spawn-helper line naming chdir", out)
	}
}

func TestHelperProgramNotFound(t *testing.T) {
	helper := buildHelper(t)
	cmd := exec.Command(helper, "", "shellport-no-such-program")
	cmd.Env = []string{"PATH=" + t.TempDir()}
	cmd.ExtraFiles = []*os.File{os.Stdin} // any fd 3; TIOCSCTTY fails first without a terminal
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != failStatus {
		t.Fatalf("err %v, want exit %d", err, failStatus)
	}
	if !strings.HasPrefix(string(out), "shellport-spawn-helper: ") {
		t.Fatalf("output %q", out)
	}
}

func TestHelperUsage(t *testing.T) {
	helper := buildHelper(t)
	out, err := exec.Command(helper, "only-dir").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != failStatus || !strings.Contains(string(out), "usage:") {
		t.Fatalf("err %v, output %q", err, out)
	}
}

// The program must start with default signal dispositions, an empty signal
// mask, only fds 0-2 open, and the terminal as controlling terminal, even
// when the helper's parent ignored and blocked signals and leaked fds.
func TestHelperResetsProcessState(t *testing.T) {
	helper := buildHelper(t)
	dir := t.TempDir()
	script := `exec 7</dev/null; trap "" INT QUIT USR1; exec ` + os.Args[0] + ` -test.run=^TestBlockedExec$ -- ` + helper + ` ` + dir
	out, st := runOnTerminal(t, "", "", "bash", "--noprofile", "--norc", "-c", script)
	if st.Code != 0 {
		t.Fatalf("status %+v; output %q", st, out)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"SigBlk", "SigIgn"} {
		if v, err := strconv.ParseUint(fields[k], 16, 64); err != nil || v != 0 {
			t.Errorf("%s = %q, want all clear\n%s", k, fields[k], out)
		}
	}
	if fields["fds"] != "0 1 2" {
		t.Errorf("open fds %q, want 0 1 2", fields["fds"])
	}
	if fields["tty"] == "" || fields["tty"] == "not a tty" {
		t.Errorf("no controlling terminal: %q", fields["tty"])
	}
	if real, _ := filepath.EvalSymlinks(dir); fields["cwd"] != real {
		t.Errorf("cwd %q, want %q", fields["cwd"], real)
	}
}

// TestBlockedExec is not a test on its own: TestHelperResetsProcessState
// runs the test binary with it to exec the helper from a thread that blocks
// signals, then the helper runs a probe that prints its own state.
func TestBlockedExec(t *testing.T) {
	args := flagArgs()
	if len(args) != 2 {
		t.Skip("helper process for TestHelperResetsProcessState")
	}
	runtime.LockOSThread()
	var all unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^uint64(0)
	}
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &all, nil); err != nil {
		t.Fatal(err)
	}
	unix.Dup2(0, 3) // the terminal as fd 3, as the contract says
	probe := `grep -E "^Sig(Blk|Ign)" /proc/self/status; echo "fds: $(ls /proc/self/fd | sort -n | tr '\n' ' ' | sed 's/ 3 $//; s/ $//')"; echo "tty: $(tty)"; echo "cwd: $(pwd -P)"`
	err := unix.Exec(args[0], []string{args[0], args[1], "/bin/sh", "-c", probe}, os.Environ())
	t.Fatalf("exec helper: %v", err)
}

func flagArgs() []string {
	for i, a := range os.Args {
		if a == "--" {
			return os.Args[i+1:]
		}
	}
	return nil
}
