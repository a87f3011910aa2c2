//go:build unix

package testkit

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// asNobodyEnv marks the copy of a test binary that [RunAsNobody] started,
// so the test runs its body there instead of starting another.
const asNobodyEnv = "SHELLPORT_TEST_AS_NOBODY"

// nobody is the unprivileged user a root test run drops to.
const nobody = 65534

// RunAsNobody lets a test whose point needs an unprivileged user (root
// bypasses file permissions) run on a machine where the suite runs as
// root, instead of skipping there (issue 18). As root it runs this test
// again in a copy of the test binary as uid/gid 65534 (nobody), fails t
// when that run fails or skips, and returns true: the caller returns. As
// any other user, and in that copy, it returns false: the caller runs its
// body.
func RunAsNobody(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(asNobodyEnv) != "" {
		return false
	}
	// The go tool's build directory is root's alone: the copy and its
	// temporary directory go where the unprivileged user can reach them.
	dir, err := os.MkdirTemp("", "shellport-as-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	tmp := filepath.Join(dir, "tmp")
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ProcWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), asNobodyEnv+"=1", "TMPDIR="+tmp, "HOME="+tmp, "GOCOVERDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as uid %d: %v\n%s", t.Name(), nobody, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s as uid %d did not pass (skipped or not run):\n%s", t.Name(), nobody, out)
	}
	t.Logf("ran as uid %d", nobody)
	return true
}

func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
