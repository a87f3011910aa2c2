//go:build cgo

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// BenchmarkABIPersistentTrue is a persistent `true` through the real C
// ABI, from a C thread that blocks in shellport_start_wait and
// shellport_wait, as the Python library transport does, with waiting
// callers parked in the kernel (the library's way since issue 16) and in
// the Go scheduler, alternated. testdata/bench_true.c times b.N calls
// after a warm-up and reports, per call, its wall time (loop-ns/op), its
// process's CPU (the caller's thread and the Go runtime's, not the
// shell's) and context switches. ns/op also holds the program's start.
func BenchmarkABIPersistentTrue(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang guard
	defer cancel()
	build := newCBuild(ctx, b)
	build.library()
	prog := build.program("testdata/bench_true.c")
	for _, park := range []string{"kernel", "scheduler"} {
		b.Run("park="+park, func(b *testing.B) {
			cmd := exec.CommandContext(ctx, prog, fmt.Sprint(b.N), park)
			cmd.Env = append(os.Environ(), spawnhelper.EnvVar+"="+testkit.SpawnHelper(b))
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			var calls, wallNs, cpuNs int64
			var switches float64
			if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &calls, &wallNs, &cpuNs, &switches); err != nil {
				b.Fatalf("unexpected output %q: %v", out, err)
			}
			b.ReportMetric(float64(wallNs), "loop-ns/op")
			b.ReportMetric(float64(cpuNs)/1e3, "cpu-µs/op")
			b.ReportMetric(switches, "ctxsw/op")
		})
	}
}
