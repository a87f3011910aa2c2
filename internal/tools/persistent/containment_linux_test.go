//go:build linux

package persistent

import (
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
)

// Issue 10, processes that escape: what a persistent shell starts keeps
// running between calls (a `(server &)` must survive until the next call),
// and nothing of it survives the session, the tool or a reset of the
// shell, however it detached: setsid, double fork, nohup, disown, set -m,
// or a job that ignores SIGHUP.

// escapesAndDeaf starts the escapes and a SIGHUP-ignoring job.
func escapesAndDeaf(marker string) string {
	return "(trap '' HUP; exec sleep " + marker + ") </dev/null >/dev/null 2>&1 &\n" + testkit.Escapes(marker)
}

func startEscapes(t *testing.T, f *fixture, session, marker string) {
	t.Helper()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	if res := f.runIn(session, escapesAndDeaf(marker)); !strings.Contains(res.Text, "started") {
		t.Fatalf("the escapes never started: %q", res.Text)
	}
	testkit.WaitProcs(t, marker, testkit.EscapeKinds+1)
	// Still there after another call: the shell's jobs live as long as it.
	f.runIn(session, "true")
	if n := len(testkit.Procs(marker)); n != testkit.EscapeKinds+1 {
		t.Fatalf("%d of the shell's jobs are running between calls, want %d", n, testkit.EscapeKinds+1)
	}
}

func TestIssue10PersistentJobsDieWithTheSession(t *testing.T) {
	f := newFixture(t, Config{})
	marker := testkit.Marker()
	startEscapes(t, f, "a", marker)
	f.tool.CloseSession("a")
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes outlived the session: %v", left)
	}
}

func TestIssue10PersistentJobsDieWithTheTool(t *testing.T) {
	f := newFixture(t, Config{})
	marker := testkit.Marker()
	startEscapes(t, f, "a", marker)
	if err := f.tool.Close(); err != nil {
		t.Fatal(err)
	}
	if left := testkit.Procs(marker); len(left) != 0 {
		t.Fatalf("processes outlived Close: %v", left)
	}
}

func TestIssue10PersistentJobsDieWithAReset(t *testing.T) {
	f := newFixture(t, Config{TimeoutMs: 3000})
	marker := testkit.Marker()
	startEscapes(t, f, "a", marker)
	res := f.runIn("a", "sleep 1000")
	if structured(t, res, "shellReset") != true {
		t.Fatalf("the timeout did not reset the shell: %q", res.Text)
	}
	testkit.WaitNoProcs(t, marker, "after the shell was reset")
}

// The shell's own exit ends its jobs too: a fresh shell starts clean.
func TestIssue10PersistentJobsDieWhenTheShellExits(t *testing.T) {
	f := newFixture(t, Config{})
	marker := testkit.Marker()
	startEscapes(t, f, "a", marker)
	f.runIn("a", "exit 3")
	testkit.WaitNoProcs(t, marker, "after the shell exited")
}

// Issue 10, descriptors: what a command runs sees only 0, 1 and 2.
func TestIssue10PersistentCommandSeesOnlyStandardDescriptors(t *testing.T) {
	f := newFixture(t, Config{})
	res := f.runIn("a", `sh -c 'ls -l /proc/$$/fd' | grep -- '->' | awk '{print $(NF-2)}' | sort -n | tr '\n' ' '`)
	if res.Text != "0 1 2 " {
		t.Fatalf("a command's process has fds %q, want 0 1 2", res.Text)
	}
}
