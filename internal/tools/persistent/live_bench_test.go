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
// collection before each reading). Only the first round is reported: the
// Go runtime keeps the OS threads it started, so later rounds would not
// count a thread a session holds. bench/spbench's live-sessions case
// measures the same from outside, by RSS.
func BenchmarkLiveSessionCost(b *testing.B) {
	f := benchFixture(b, Config{})
	benchCall(b, f, "true") // the tool's shared state exists before the baseline
	var first []float64
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
		if first == nil {
			n := float64(liveSessions)
			first = []float64{
				(float64(after.heap) - float64(before.heap)) / n,
				(float64(after.stack) - float64(before.stack)) / n,
				float64(after.goroutines-before.goroutines) / n,
				float64(after.threads-before.threads) / n,
				float64(after.fds-before.fds) / n,
			}
		}
		b.StartTimer()
	}
	for i, unit := range []string{"heap-B/session", "stack-B/session", "goroutines/session", "threads/session", "fds/session"} {
		b.ReportMetric(first[i], unit)
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
