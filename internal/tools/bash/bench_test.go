package bash_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// BenchmarkTrue is one one-shot `true` through the tool: spawn, wait, drain
// and format.
func BenchmarkTrue(b *testing.B) {
	ts := bash.New(tools.Host{SpillDir: b.TempDir()}, bash.Config{SpawnHelper: testkit.SpawnHelper(b)})
	defer ts[0].(tools.Closer).Close()
	c := &tools.Call{ID: "b", Session: tools.Session{ID: "s", Key: "s", Cwd: b.TempDir()},
		Arguments: json.RawMessage(`{"command":"true","description":"Do nothing"}`)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := ts[0].Call(b.Context(), c)
		if err != nil || res.Text != "[no output]" {
			b.Fatalf("%v %v", res, err)
		}
	}
}

// BenchmarkExecTrue is the floor: os/exec running `bash -c true` with
// nothing else, in the same run for a ratio.
func BenchmarkExecTrue(b *testing.B) {
	path, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	for b.Loop() {
		if err := exec.Command(path, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSupervisedTrue is `bash -c true` started under its supervisor
// (shellport-spawn-helper) and waited for, as every one-shot command runs
// on Linux: compare with BenchmarkExecTrue for the helper's cost.
func BenchmarkSupervisedTrue(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("commands run under a supervisor on linux only")
	}
	path, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	helper := testkit.SpawnHelper(b)
	for b.Loop() {
		p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: path, Args: []string{"bash", "-c", "true"}})
		if err != nil {
			b.Fatal(err)
		}
		if st, err := p.Wait(); err != nil || !st.Success() {
			b.Fatalf("%v %v", st, err)
		}
	}
}

// BenchmarkSupervisedVsDirect alternates `bash -c true` started directly and
// under its supervisor, one of each per iteration, and reports both
// medians: pairing the two keeps a shared machine's drift out of the
// comparison.
func BenchmarkSupervisedVsDirect(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("commands run under a supervisor on linux only")
	}
	path, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	helper := testkit.SpawnHelper(b)
	var direct, supervised []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := exec.Command(path, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: path, Args: []string{"bash", "-c", "true"}})
		if err != nil {
			b.Fatal(err)
		}
		if st, err := p.Wait(); err != nil || !st.Success() {
			b.Fatalf("%v %v", st, err)
		}
		direct, supervised = append(direct, t1.Sub(t0)), append(supervised, time.Since(t1))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	b.ReportMetric(median(direct), "direct-p50-us")
	b.ReportMetric(median(supervised), "supervised-p50-us")
}

// BenchmarkSandboxedVsPlain is issue 12's spawn cost: a one-shot `true`
// through the tool in a session without a sandbox and in one under
// workspace-write with network off (a Landlock ruleset and a seccomp
// program built for the spawn, applied by the supervisor), alternated per
// iteration, with both medians and their difference.
func BenchmarkSandboxedVsPlain(b *testing.B) {
	if s := sandbox.Probe(); s.Backend != sandbox.BackendLandlock || !s.Seccomp {
		b.Skipf("no Landlock and seccomp here: %s", s.Reason)
	}
	cwd := b.TempDir()
	pol, err := sandbox.Resolve(sandbox.Request{Session: &sandbox.Config{Mode: sandbox.ModeWorkspaceWrite}, Cwd: cwd})
	if err != nil {
		b.Fatal(err)
	}
	ts := bash.New(tools.Host{SpillDir: b.TempDir()}, bash.Config{SpawnHelper: testkit.SpawnHelper(b)})
	defer ts[0].(tools.Closer).Close()
	args := json.RawMessage(`{"command":"true","description":"Do nothing"}`)
	plain := &tools.Call{ID: "p", Session: tools.Session{ID: "p", Key: "p", Cwd: cwd}, Arguments: args}
	boxed := &tools.Call{ID: "s", Session: tools.Session{ID: "s", Key: "s", Cwd: cwd, Sandbox: pol, PathPolicy: pol.PathPolicy()}, Arguments: args}
	run := func(c *tools.Call) time.Duration {
		t0 := time.Now()
		res, err := ts[0].Call(b.Context(), c)
		if err != nil || res.Text != "[no output]" {
			b.Fatalf("%v %v", res, err)
		}
		return time.Since(t0)
	}
	run(plain)
	run(boxed)
	var p, s []time.Duration
	for b.Loop() {
		p, s = append(p, run(plain)), append(s, run(boxed))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	mp, ms := median(p), median(s)
	b.ReportMetric(mp, "plain-p50-us")
	b.ReportMetric(ms, "sandboxed-p50-us")
	b.ReportMetric(ms-mp, "extra-p50-us")
}

// BenchmarkTrueSpareVsExec alternates blocks of 20 one-shot `true` calls
// through two bash tools, one keeping a spare supervisor (as in the
// shellport executable, issue 16) and one exec'ing a supervisor per
// command (as in the library), calls back to back
// as a caller makes them, and reports both medians.
func BenchmarkTrueSpareVsExec(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	spare := bash.New(tools.Host{SpillDir: b.TempDir()}, bash.Config{SpawnHelper: helper})
	defer spare[0].(tools.Closer).Close()
	bash.WithSpares(spare)
	execd := bash.New(tools.Host{SpillDir: b.TempDir()}, bash.Config{SpawnHelper: helper})
	defer execd[0].(tools.Closer).Close()
	c := &tools.Call{ID: "b", Session: tools.Session{ID: "s", Key: "s", Cwd: b.TempDir()},
		Arguments: json.RawMessage(`{"command":"true","description":"Do nothing"}`)}
	var times [2][]time.Duration
	block := func(i int, ts []tools.Tool) {
		for range 20 {
			t0 := time.Now()
			res, err := ts[0].Call(b.Context(), c)
			if err != nil || res.Text != "[no output]" {
				b.Fatalf("%v %v", res, err)
			}
			times[i] = append(times[i], time.Since(t0))
		}
	}
	for b.Loop() {
		block(0, spare)
		block(1, execd)
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	b.ReportMetric(median(times[0]), "spare-p50-us")
	b.ReportMetric(median(times[1]), "exec-p50-us")
}
