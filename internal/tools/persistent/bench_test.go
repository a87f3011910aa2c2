package persistent

import (
	"context"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

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
// floor by p50).
func BenchmarkRoundTripTrue(b *testing.B) {
	f := benchFixture(b, Config{})
	benchCall(b, f, "true")
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		benchCall(b, f, "true")
		times = append(times, time.Since(start))
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
