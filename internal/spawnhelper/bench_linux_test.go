//go:build linux

package spawnhelper_test

import (
	"context"
	"testing"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// BenchmarkStartAndClose is one supervised `sleep` started, then killed
// with everything it started (KillAll) and waited for: what opening and
// closing a session costs the supervisor. The subtree walk's cost follows
// the session's processes; the /proc scan's, every process on the machine
// (issue 16: closing thousands of sessions at once).
func BenchmarkStartAndClose(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	for _, scan := range []bool{false, true} {
		name := "subtree"
		if scan {
			name = "proc-scan"
		}
		b.Run(name, func(b *testing.B) {
			defer spawnhelper.SetSweepScanAll(scan)()
			for b.Loop() {
				p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "sleep", Args: []string{"sleep", "3600"}})
				if err != nil {
					b.Fatal(err)
				}
				if err := p.KillAll(); err != nil {
					b.Fatal(err)
				}
				if _, err := p.Wait(); err != nil || p.Lost() {
					b.Fatalf("wait: %v (lost %v)", err, p.Lost())
				}
			}
		})
	}
}
