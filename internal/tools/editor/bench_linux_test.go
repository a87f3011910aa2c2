package editor

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// waitSettled waits until p's change time is more than 150 ms old.
func waitSettled(b *testing.B, p string) {
	fi, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if d := 150*time.Millisecond - time.Since(time.Unix(st.Ctim.Unix())); d > 0 {
		time.Sleep(d)
	}
}

// cpuClock reports a benchmark's CPU time (user and system, the whole
// process) per operation as cpu-ns/op: on a shared machine the wall time
// of an fsync says more about the neighbours than about the code.
type cpuClock struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) cpuClock { return cpuClock{b, processCPU(b)} }

func (c cpuClock) report() {
	c.b.ReportMetric(float64(processCPU(c.b)-c.start)/float64(c.b.N), "cpu-ns/op")
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
