//go:build linux

package spawnhelper_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// BenchmarkStartAndClose is one supervised `sleep` started, then killed
// with everything it started (KillAll) and waited for: what opening and
// closing a session costs the supervisor. The subtree walk's cost follows
// the session's processes; the /proc scan's, every process on the machine
// (issue 16: closing thousands of sessions at once).
func BenchmarkStartAndClose(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	for _, scan := range []bool{false, true} {
		name := "subtree"
		if scan {
			name = "proc-scan"
		}
		b.Run(name, func(b *testing.B) {
			defer spawnhelper.SetSweepScanAll(scan)()
			for b.Loop() {
				p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "sleep", Args: []string{"sleep", "3600"}})
				if err != nil {
					b.Fatal(err)
				}
				if err := p.KillAll(); err != nil {
					b.Fatal(err)
				}
				if _, err := p.Wait(); err != nil || p.Lost() {
					b.Fatalf("wait: %v (lost %v)", err, p.Lost())
				}
			}
		})
	}
}

// BenchmarkLiveSupervisor is what a live session's supervisor holds (issue
// 16): supervisors of a supervised `sleep` are started, then each one's
// private memory (Private_Clean + Private_Dirty of smaps_rollup; its file's
// pages are shared by all of them, so they are private only to a lone one,
// which is why two live at once) and its descriptors are reported, and all
// are closed.
func BenchmarkLiveSupervisor(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	var private, descriptors, n float64
	for b.Loop() {
		var ps []*spawnhelper.Process
		for range 2 {
			p, err := spawnhelper.Start(context.Background(), spawnhelper.Spec{Helper: helper, Path: "sleep", Args: []string{"sleep", "3600"}})
			if err != nil {
				b.Fatal(err)
			}
			ps = append(ps, p)
		}
		for _, p := range ps {
			kb, fds, err := footprint(p.SupervisorPid())
			if err != nil {
				b.Fatal(err)
			}
			private, descriptors, n = private+kb, descriptors+fds, n+1
		}
		for _, p := range ps {
			if err := p.KillAll(); err != nil {
				b.Fatal(err)
			}
			if _, err := p.Wait(); err != nil || p.Lost() {
				b.Fatalf("wait: %v (lost %v)", err, p.Lost())
			}
		}
	}
	b.ReportMetric(private/n, "private-KB")
	b.ReportMetric(descriptors/n, "fds")
}

// footprint reads a process's private memory in KB and counts its
// descriptors.
func footprint(pid int) (kb, fds float64, err error) {
	dir := "/proc/" + strconv.Itoa(pid)
	rollup, err := os.ReadFile(dir + "/smaps_rollup")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(rollup), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "Private_Clean:" || f[0] == "Private_Dirty:") {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return 0, 0, fmt.Errorf("parse %s: %w", line, err)
			}
			kb += v
		}
	}
	entries, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return 0, 0, err
	}
	return kb, float64(len(entries)), nil
}

// BenchmarkSpareVsStart alternates `bash -c true` started under a
// supervisor exec'd for it (Start) and under a spare started ahead of it
// (Spares.Start, issue 16), one of each per iteration, and reports both
// medians and the CPU of the processes each way reaps (the supervisor and
// bash; a spare's own start is counted when it is reaped, one spawn
// later): pairing them keeps a shared machine's drift out of the ratio.
func BenchmarkSpareVsStart(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	spares := spawnhelper.NewSpares(helper)
	defer spares.Close()
	dir := b.TempDir()
	run := func(start func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error)) (time.Duration, time.Duration) {
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
		t0 := time.Now()
		p, err := start(context.Background(), spawnhelper.Spec{Helper: helper, Path: bash, Args: []string{"bash", "-c", "true"}, Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if p != nil {
			if st, err := p.Wait(); err != nil || !st.Success() {
				b.Fatalf("%v %v", st, err)
			}
		}
		wall := time.Since(t0)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		return wall, cpu
	}
	run(spares.Start) // the first spare
	var direct, spare, directCPU, spareCPU, plain, plainCPU []time.Duration
	for b.Loop() {
		w, c := run(func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error) {
			return nil, exec.Command(bash, "-c", "true").Run()
		})
		plain, plainCPU = append(plain, w), append(plainCPU, c)
		w, c = run(spawnhelper.Start)
		direct, directCPU = append(direct, w), append(directCPU, c)
		w, c = run(spares.Start)
		spare, spareCPU = append(spare, w), append(spareCPU, c)
	}
	b.ReportMetric(float64(median(direct).Microseconds()), "start-p50-us")
	b.ReportMetric(float64(median(spare).Microseconds()), "spare-p50-us")
	b.ReportMetric(float64(mean(directCPU).Microseconds()), "start-cpu-us")
	b.ReportMetric(float64(mean(spareCPU).Microseconds()), "spare-cpu-us")
	b.ReportMetric(float64(median(plain).Microseconds()), "exec-p50-us")
	b.ReportMetric(float64(mean(plainCPU).Microseconds()), "exec-cpu-us")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}
