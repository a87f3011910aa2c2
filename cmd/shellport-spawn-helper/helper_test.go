package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/pty"
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
