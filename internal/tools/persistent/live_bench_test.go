package persistent

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// liveSessions is how many sessions BenchmarkLiveSessionCost holds.
const liveSessions = 128

// BenchmarkLiveSessionCost is what a live, idle persistent session costs
// the runtime (issue 16): it opens liveSessions sessions, each with its
// shell started by a first `true`, and reports per session the Go heap and
// goroutine stacks in use, the goroutines and OS threads, and the
// descriptors it holds, from before the first to after the last (a
// collection before each reading). bench/spbench's live-sessions case
// measures the same from outside, by RSS.
func BenchmarkLiveSessionCost(b *testing.B) {
	f := benchFixture(b, Config{})
	benchCall(b, f, "true") // the tool's shared state exists before the baseline
	for b.Loop() {
		before := liveUsage()
		keys := make([]string, liveSessions)
		for i := range keys {
			keys[i] = "live" + strconv.Itoa(i)
			res, err := f.tool.Call(context.Background(), &tools.Call{ID: "b", Arguments: args("true"),
				Session: tools.Session{ID: keys[i], Key: keys[i], Cwd: f.cwd}})
			if err != nil || res.IsError {
				b.Fatalf("open %s: %v %v", keys[i], res, err)
			}
		}
		after := liveUsage()
		b.StopTimer()
		for _, k := range keys {
			f.tool.CloseSession(k)
		}
		n := float64(liveSessions)
		b.ReportMetric(float64(after.heap-before.heap)/n, "heap-B/session")
		b.ReportMetric(float64(after.stack-before.stack)/n, "stack-B/session")
		b.ReportMetric(float64(after.goroutines-before.goroutines)/n, "goroutines/session")
		b.ReportMetric(float64(after.threads-before.threads)/n, "threads/session")
		b.ReportMetric(float64(after.fds-before.fds)/n, "fds/session")
		b.StartTimer()
	}
}

type usage struct {
	heap, stack              uint64
	goroutines, threads, fds int
}

func liveUsage() usage {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	u := usage{heap: m.HeapInuse, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		u.fds = len(ents)
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				u.threads, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
	}
	return u
}
