//go:build linux

package persistent

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkShellInstructionsPerCommand is the instructions bash executes
// in user space per persistent `true`, from valgrind's callgrind, net of
// a session without the measured calls. Unlike CPU time it does not move
// with the machine's load, so it compares driver loops to within a few
// hundred instructions in one run (issue 16); system calls are counted
// apart (BenchmarkShellSyscallsPerCommand). Skipped where valgrind is not
// installed.
func BenchmarkShellInstructionsPerCommand(b *testing.B) {
	valgrind, err := exec.LookPath("valgrind")
	if err != nil {
		b.Skip("no valgrind")
	}
	count := func(n int) float64 {
		return callgrindTotal(b, shellUnder(b, n, func(out string) []string {
			return []string{valgrind, "--tool=callgrind", "--callgrind-out-file=" + out, "--log-file=" + out + ".log"}
		}))
	}
	b.StopTimer()
	base := count(0)
	b.StartTimer()
	more := count(b.N)
	b.ReportMetric((more-base)/float64(b.N), "bash-instructions/op")
}

// callgrindTotal reads the total of instructions from a callgrind file.
func callgrindTotal(b *testing.B, path string) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "totals:"); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				if v, err := strconv.ParseFloat(fields[0], 64); err == nil {
					return v
				}
			}
		}
	}
	b.Fatalf("no totals in %s", path)
	return 0
}
