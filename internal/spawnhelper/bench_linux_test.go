//go:build linux

package spawnhelper_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// BenchmarkLiveSupervisor is what a live session's supervisor holds (issue
// 16): supervisors of a supervised `sleep` are started, then each one's
// private memory (Private_Clean + Private_Dirty of smaps_rollup; its file's
// pages are shared by all of them, so they are private only to a lone one,
// which is why two live at once) and its descriptors are reported, and all
// are closed.
func BenchmarkLiveSupervisor(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	var private, descriptors, n float64
	for b.Loop() {
		var ps []*spawnhelper.Process
		for range 2 {
			p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "sleep", Args: []string{"sleep", "3600"}})
			if err != nil {
				b.Fatal(err)
			}
			ps = append(ps, p)
		}
		for _, p := range ps {
			kb, fds, err := footprint(p.SupervisorPid())
			if err != nil {
				b.Fatal(err)
			}
			private, descriptors, n = private+kb, descriptors+fds, n+1
		}
		for _, p := range ps {
			if err := p.KillAll(); err != nil {
				b.Fatal(err)
			}
			if _, err := p.Wait(); err != nil || p.Lost() {
				b.Fatalf("wait: %v (lost %v)", err, p.Lost())
			}
		}
	}
	b.ReportMetric(private/n, "private-KB")
	b.ReportMetric(descriptors/n, "fds")
}

// footprint reads a process's private memory in KB and counts its
// descriptors.
func footprint(pid int) (kb, fds float64, err error) {
	dir := "/proc/" + strconv.Itoa(pid)
	rollup, err := os.ReadFile(dir + "/smaps_rollup")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(rollup), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "Private_Clean:" || f[0] == "Private_Dirty:") {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return 0, 0, fmt.Errorf("parse %s: %w", line, err)
			}
			kb += v
		}
	}
	entries, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return 0, 0, err
	}
	return kb, float64(len(entries)), nil
}
