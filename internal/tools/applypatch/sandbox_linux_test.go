//go:build linux

package applypatch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/tools"
)

// sandboxed returns a session in dir under workspace-write (the temporary
// directories read-only), or skips where the kernel cannot enforce it.
func sandboxed(t *testing.T, dir string) tools.Session {
	t.Helper()
	if s := sandbox.Probe(); s.Backend != sandbox.BackendLandlock {
		t.Skipf("no Landlock here: %s", s.Reason)
	}
	off := false
	p, err := sandbox.Resolve(sandbox.Request{Session: &sandbox.Config{Mode: sandbox.ModeWorkspaceWrite, WritableTmp: &off}, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	sess := session(dir)
	sess.Sandbox, sess.PathPolicy = p, p.PathPolicy()
	return sess
}

// Issue 12: apply_patch in a sandboxed session is refused outside the
// policy with a message naming the path and the mode; without the path
// check, the kernel refuses the write all the same (the patch runs on a
// confined thread), and the patch is undone as a whole.
func TestSandboxHoldsThePatch(t *testing.T) {
	outside := workdir(t, map[string]string{"secret.txt": "secret\n"})
	dir := workdir(t, map[string]string{"in.txt": "in\n"})
	sess := sandboxed(t, dir)
	secret := filepath.Join(outside, "secret.txt")
	args := patchArgs(t, "*** Begin Patch\n*** Update File: in.txt\n-in\n+IN\n*** Update File: "+secret+"\n-secret\n+pwned\n*** Add File: "+filepath.Join(outside, "new.txt")+"\n+x\n*** End Patch\n")
	before, beforeIn := snapshot(t, outside), snapshot(t, dir)
	res := call(t, New(tools.Host{}, Config{}), sess, args)
	if !res.IsError {
		t.Fatal("applied outside the sandbox")
	}
	contains(t, res.Text, "cannot change "+secret+": this session's sandbox is workspace-write")
	sameTree(t, outside, before)
	sameTree(t, dir, beforeIn)

	sess.PathPolicy = nil // the kernel alone
	res = call(t, New(tools.Host{}, Config{}), sess, args)
	if !res.IsError {
		t.Fatal("the kernel let the patch write outside")
	}
	contains(t, res.Text, "permission denied")
	sameTree(t, outside, before)
	sameTree(t, dir, beforeIn)
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("a file was created outside")
	}

	res = call(t, New(tools.Host{}, Config{}), sess, patchArgs(t, "*** Begin Patch\n*** Update File: in.txt\n-in\n+IN\n*** End Patch\n"))
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantFile(t, filepath.Join(dir, "in.txt"), "IN\n")
}
