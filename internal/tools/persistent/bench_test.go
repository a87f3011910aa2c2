package persistent

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
)

func benchCall(b *testing.B, f *fixture, command string) *tools.Result {
	res, err := f.callIn(context.Background(), "s", command)
	if err != nil || res.IsError {
		b.Fatalf("%q: %v %v", command, res, err)
	}
	return res
}

func benchFixture(b *testing.B, cfg Config) *fixture {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		b.Skipf("no terminal on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	f := &fixture{cwd: b.TempDir(), spill: b.TempDir()}
	if cfg.SpawnHelper == "" {
		cfg.SpawnHelper = testkit.SpawnHelper(b)
	}
	f.tool = New(tools.Host{SpillDir: f.spill}, cfg).(*Tool)
	b.Cleanup(func() { _ = f.tool.Close() })
	return f
}

// BenchmarkRoundTripTrue is the per-call overhead: `true` in a warm shell.
// Besides the mean it reports the median and 90th percentile, which a
// shared machine's outliers distort less (compare with bench/'s raw-PTY
// floor by p50), and the runtime's own CPU time (user + system of this
// process, every thread; bash and its supervisor are other processes) and
// context switches per call (issue 16), which a loaded machine distorts
// less than wall time.
func BenchmarkRoundTripTrue(b *testing.B) {
	f := benchFixture(b, Config{})
	benchCall(b, f, "true")
	var times []time.Duration
	cpu0, cs0, ok := selfUsage()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		benchCall(b, f, "true")
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	if cpu1, cs1, ok1 := selfUsage(); ok && ok1 {
		n := float64(len(times))
		b.ReportMetric(float64(cpu1-cpu0)/1e3/n, "cpu-us/op")
		b.ReportMetric(float64(cs1-cs0)/n, "ctxsw/op")
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds()), "p90-ns")
}

// BenchmarkSeq2M is output throughput: 14,888,896 bytes through the
// terminal, the cleaner, the bound and the spill file.
func BenchmarkSeq2M(b *testing.B) {
	f := benchFixture(b, Config{})
	benchCall(b, f, "true")
	b.SetBytes(14888896)
	b.ResetTimer()
	for b.Loop() {
		res := benchCall(b, f, "seq 1 2000000")
		b.StopTimer()
		_ = os.Remove(res.Structured["spillPath"].(string))
		b.StartTimer()
	}
}

// benchSandbox is workspace-write with network off in the fixture's
// directory, or a skip where the kernel cannot enforce it.
func benchSandbox(b *testing.B, f *fixture) *sandbox.Policy {
	if s := sandbox.Probe(); s.Backend != sandbox.BackendLandlock || !s.Seccomp {
		b.Skipf("no Landlock and seccomp here: %s", s.Reason)
	}
	p, err := sandbox.Resolve(sandbox.Request{Session: &sandbox.Config{Mode: sandbox.ModeWorkspaceWrite}, Cwd: f.cwd})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}

func (f *fixture) benchIn(b *testing.B, key string, pol *sandbox.Policy, command string) time.Duration {
	t0 := time.Now()
	res, err := f.tool.Call(context.Background(), &tools.Call{ID: "b", Arguments: args(command),
		Session: tools.Session{ID: key, Key: key, Cwd: f.cwd, Sandbox: pol, PathPolicy: pol.PathPolicy()}})
	if err != nil || res.IsError {
		b.Fatalf("%q: %v %v", command, res, err)
	}
	return time.Since(t0)
}

func p50us(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds())
}

// BenchmarkSandboxedRoundTrip is issue 12's round-trip cost: `true` in a
// warm shell without a sandbox and in one under workspace-write with
// network off, alternated, with both medians. The sandbox is applied once,
// when the shell starts, so the two should match.
func BenchmarkSandboxedRoundTrip(b *testing.B) {
	f := benchFixture(b, Config{})
	pol := benchSandbox(b, f)
	f.benchIn(b, "plain", nil, "true")
	f.benchIn(b, "boxed", pol, "true")
	var p, s []time.Duration
	for b.Loop() {
		p = append(p, f.benchIn(b, "plain", nil, "true"))
		s = append(s, f.benchIn(b, "boxed", pol, "true"))
	}
	mp, ms := p50us(p), p50us(s)
	b.ReportMetric(mp, "plain-p50-us")
	b.ReportMetric(ms, "sandboxed-p50-us")
	b.ReportMetric(ms-mp, "extra-p50-us")
}

// BenchmarkSandboxedShellStart is the spawn cost of a persistent shell:
// start, boot and the first `true` of a new session, without a sandbox and
// under workspace-write with network off, alternated, with both medians.
func BenchmarkSandboxedShellStart(b *testing.B) {
	f := benchFixture(b, Config{})
	pol := benchSandbox(b, f)
	var p, s []time.Duration
	n := 0
	for b.Loop() {
		n++
		pk, sk := "plain"+strconv.Itoa(n), "boxed"+strconv.Itoa(n)
		p = append(p, f.benchIn(b, pk, nil, "true"))
		s = append(s, f.benchIn(b, sk, pol, "true"))
		b.StopTimer()
		f.tool.CloseSession(pk)
		f.tool.CloseSession(sk)
		b.StartTimer()
	}
	mp, ms := p50us(p), p50us(s)
	b.ReportMetric(mp, "plain-p50-us")
	b.ReportMetric(ms, "sandboxed-p50-us")
	b.ReportMetric(ms-mp, "extra-p50-us")
}
