//go:build linux

package persistent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	count := func(n int) float64 {
		dir := b.TempDir()
		out := filepath.Join(dir, "callgrind.out")
		wrapper := filepath.Join(dir, "bash")
		line := "#!/bin/sh\nexec " + shellQuote(valgrind) + " --tool=callgrind --callgrind-out-file=" + shellQuote(out) +
			" -- " + shellQuote(bash) + " \"$@\" 2>/dev/null\n"
		if err := os.WriteFile(wrapper, []byte(line), 0o700); err != nil {
			b.Fatal(err)
		}
		// Under valgrind bash runs some fifty times slower.
		f := benchFixture(b, Config{Shell: wrapper, TimeoutMs: 120000})
		benchCall(b, f, "true")
		for range n {
			benchCall(b, f, "true")
		}
		if _, err := f.callIn(context.Background(), "s", "exit 0"); err != nil {
			b.Fatal(err)
		}
		f.tool.CloseSession("s")
		return callgrindTotal(b, out)
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
