//go:build cgo

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// cBuild builds the library with the test-only hooks, and C programs
// against it, in a temporary directory.
type cBuild struct {
	ctx        context.Context
	tb         testing.TB
	cc, goTool string
	dir        string
}

// newCBuild finds a C compiler and the go tool, or skips tb.
func newCBuild(ctx context.Context, tb testing.TB) *cBuild {
	tb.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		cc, err = exec.LookPath("cc")
	}
	if err != nil {
		tb.Skipf("no C compiler on %s: cannot build the C ABI test program", os.Getenv("PATH"))
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Skipf("no go tool on PATH: cannot build the library")
	}
	return &cBuild{ctx: ctx, tb: tb, cc: cc, goTool: goTool, dir: tb.TempDir()}
}

// run runs a command and returns its output, failing tb if it fails.
func (b *cBuild) run(name string, env []string, args ...string) string {
	b.tb.Helper()
	cmd := exec.CommandContext(b.ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// library builds libshellport with the test-only hooks and extra go build flags.
func (b *cBuild) library(flags ...string) {
	b.tb.Helper()
	args := append([]string{"build", "-tags", "shellport_capitest"}, flags...)
	args = append(args, "-buildmode=c-shared", "-o", filepath.Join(b.dir, "libshellport.so"), ".")
	b.run(b.goTool, []string{"CGO_ENABLED=1"}, args...)
}

// program compiles a C source against the library and returns its path.
func (b *cBuild) program(source string) string {
	b.tb.Helper()
	prog := filepath.Join(b.dir, strings.TrimSuffix(filepath.Base(source), ".c"))
	b.run(b.cc, nil, "-O2", "-o", prog, source, "-I", b.dir, "-L", b.dir, "-lshellport",
		"-Wl,-rpath,"+b.dir, "-pthread")
	return prog
}

// minABICoverage is the bar of issue 18 for the statements of this package
// that the C test program reaches.
const minABICoverage = 80.0

// TestABIFromC builds libshellport with the test-only hooks and coverage,
// compiles testdata/abi_test.c against it and runs it: the -1/-2 returns, a
// NULL request, unknown and closed handles, double close, panic recovery,
// exact ids (issue 10) and concurrent send/recv/call/close, all through the
// real C ABI. It then measures how much of this package the program
// covered and fails below minABICoverage.
func TestABIFromC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang guard
	defer cancel()
	b := newCBuild(ctx, t)
	b.library("-cover", "-covermode=atomic", "-coverpkg", "github.com/shellport/shellport/capi")
	prog := b.program("testdata/abi_test.c")
	dir := b.dir
	run := b.run

	covDir := filepath.Join(dir, "cov")
	if err := os.Mkdir(covDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, prog, covDir)
	// On Linux the runtime needs the spawn helper, which a test binary has
	// nowhere beside it.
	cmd.Env = append(os.Environ(), "GOCOVERDIR="+covDir, spawnhelper.EnvVar+"="+testkit.SpawnHelper(t))
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "FAIL") {
			t.Error(line)
		}
	}
	if err != nil {
		t.Fatalf("the C test program failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "\n0 failures") {
		t.Fatalf("the C test program did not finish:\n%s", out)
	}

	report := run(b.goTool, nil, "tool", "covdata", "percent", "-i", covDir)
	m := regexp.MustCompile(`shellport/capi\s+coverage:\s+([\d.]+)%`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no coverage figure for the capi package in:\n%s", report)
	}
	pct, _ := strconv.ParseFloat(m[1], 64)
	t.Logf("C ABI statement coverage from C: %.1f%%", pct)
	if pct < minABICoverage {
		t.Fatalf("the C test program covers %.1f%% of the C ABI, below the %.0f%% bar", pct, minABICoverage)
	}
}
