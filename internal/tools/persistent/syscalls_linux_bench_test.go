//go:build linux

package persistent

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// shellUnder runs a session's bash under a tracer, the words trace gives
// for the file its figures go to (out), makes n calls of `true` after the
// first, and returns out once bash has exited: `exit`, not a kill, so the
// tracer writes its figures. The call timeout is long: under valgrind
// bash runs some fifty times slower.
func shellUnder(b *testing.B, n int, trace func(out string) []string) string {
	b.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	dir := b.TempDir()
	out := filepath.Join(dir, "figures")
	var words []string
	for _, w := range trace(out) {
		words = append(words, shellQuote(w))
	}
	words = append(words, "--", shellQuote(bash), `"$@"`)
	wrapper := filepath.Join(dir, "bash")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+strings.Join(words, " ")+"\n"), 0o700); err != nil {
		b.Fatal(err)
	}
	f := benchFixture(b, Config{Shell: wrapper, TimeoutMs: 120000})
	benchCall(b, f, "true")
	for range n {
		benchCall(b, f, "true")
	}
	if _, err := f.callIn(context.Background(), "s", "exit 0"); err != nil {
		b.Fatal(err)
	}
	f.tool.CloseSession("s")
	return out
}

// BenchmarkShellSyscallsPerCommand counts the system calls bash makes per
// persistent `true` (issue 16): bash runs under `strace -f -c`, and the
// counts of a session without the measured calls (boot, one call, exit)
// are taken from one with b.N more. It reports syscalls/op in all and
// those that save and restore descriptors around redirections (fcntl,
// dup2, close). Skipped where strace is not installed.
func BenchmarkShellSyscallsPerCommand(b *testing.B) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		b.Skip("no strace")
	}
	count := func(n int) map[string]float64 {
		return straceCounts(b, shellUnder(b, n, func(out string) []string { return []string{strace, "-f", "-c", "-o", out} }))
	}
	b.StopTimer()
	base := count(0)
	b.StartTimer()
	more := count(b.N)
	per := func(name string) float64 { return (more[name] - base[name]) / float64(b.N) }
	b.ReportMetric(per("total"), "syscalls/op")
	b.ReportMetric(per("fcntl"), "fcntl/op")
	b.ReportMetric(per("dup2"), "dup2/op")
	b.ReportMetric(per("close"), "close/op")
	for name := range more {
		if d := per(name); d > 0 && name != "total" {
			b.Logf("%-16s %.2f/op", name, d)
		}
	}
}

// BenchmarkShellCPUPerCommand is bash's own CPU time (user + system) per
// persistent `true`, from `perf stat`, net of a session without the
// measured calls. Skipped where perf is not installed or not permitted.
func BenchmarkShellCPUPerCommand(b *testing.B) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		b.Skip("no perf")
	}
	if err := exec.Command(perf, "stat", "-e", "task-clock", "true").Run(); err != nil {
		b.Skipf("perf stat does not run here: %v", err)
	}
	clock := func(n int) float64 {
		return perfTaskClock(b, shellUnder(b, n, func(out string) []string {
			return []string{perf, "stat", "-x", ",", "-e", "task-clock", "-o", out}
		}))
	}
	b.StopTimer()
	base := clock(0)
	b.StartTimer()
	more := clock(b.N)
	b.ReportMetric((more-base)*1000/float64(b.N), "bash-cpu-us/op")
}

// straceCounts reads the table of strace -c: calls by system call, and
// "total".
func straceCounts(b *testing.B, path string) map[string]float64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	counts := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// % time, seconds, usecs/call, calls, [errors], syscall
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		if calls, err := strconv.Atoi(fields[3]); err == nil {
			counts[fields[len(fields)-1]] = float64(calls)
		}
	}
	return counts
}

// perfTaskClock reads the milliseconds of task-clock from perf stat -x ,.
func perfTaskClock(b *testing.B, path string) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Split(line, ",")
		if len(fields) > 2 && strings.HasPrefix(fields[2], "task-clock") {
			if ms, err := strconv.ParseFloat(fields[0], 64); err == nil {
				return ms
			}
		}
	}
	b.Fatalf("no task-clock in %s:\n%s", path, data)
	return 0
}

// BenchmarkRoundTripSchedulerSyscalls counts the Go scheduler's system
// calls in the runtime (this process, every thread) per persistent `true`
// (issue 16): futex, epoll_pwait, nanosleep and sched_yield, which a Go
// program makes to park and wake its threads, and besides them the reads
// and writes of the call itself (the inbox, the FIFOs, the terminal, the
// waker), from `perf stat` attached to this process with its counters
// enabled only around the measured calls. Bash is another process and is
// not counted. Skipped where perf or its system-call tracepoints are not
// available.
func BenchmarkRoundTripSchedulerSyscalls(b *testing.B) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		b.Skip("no perf")
	}
	kinds := []string{"futex", "epoll_pwait", "nanosleep", "sched_yield"}
	io := []string{"read", "write"}
	events := make([]string, 0, len(kinds)+len(io))
	for _, k := range append(kinds, io...) {
		events = append(events, "syscalls:sys_enter_"+k)
	}
	f := benchFixture(b, Config{})
	for range 50 {
		benchCall(b, f, "true")
	}
	dir := b.TempDir()
	ctl, ack, out := filepath.Join(dir, "ctl"), filepath.Join(dir, "ack"), filepath.Join(dir, "counts")
	for _, p := range []string{ctl, ack} {
		if err := mkfifo(p); err != nil {
			b.Fatal(err)
		}
	}
	cmd := exec.Command(perf, "stat", "-x", ",", "-o", out, "-e", strings.Join(events, ","),
		"-D", "-1", "--control", "fifo:"+ctl+","+ack, "-p", strconv.Itoa(os.Getpid()))
	if err := cmd.Start(); err != nil {
		b.Skipf("perf stat does not start: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ctlW, err := os.OpenFile(ctl, os.O_WRONLY, 0) // waits for perf to open its end
	if err != nil {
		b.Fatal(err)
	}
	defer ctlW.Close()
	ackR, err := os.Open(ack)
	if err != nil {
		b.Fatal(err)
	}
	defer ackR.Close()
	acks := bufio.NewReader(ackR)
	command := func(c string) {
		if _, err := ctlW.WriteString(c + "\n"); err != nil {
			b.Fatal(err)
		}
		// perf ends each acknowledgement with a NUL after the newline.
		if line, err := acks.ReadString('\n'); err != nil || strings.Trim(line, "\x00") != "ack\n" {
			b.Skipf("perf stat did not acknowledge %q: %q %v", c, line, err)
		}
	}
	b.ResetTimer()
	command("enable")
	n := 0
	for b.Loop() {
		benchCall(b, f, "true")
		n++
	}
	command("disable")
	b.StopTimer()
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	counts := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Split(line, ",")
		if len(fields) > 2 {
			if v, err := strconv.ParseFloat(fields[0], 64); err == nil {
				counts[strings.TrimPrefix(fields[2], "syscalls:sys_enter_")] = v
			}
		}
	}
	if len(counts) == 0 {
		b.Skipf("perf stat counted nothing here:\n%s", data)
	}
	total := 0.0
	for _, k := range kinds {
		total += counts[k]
		b.ReportMetric(counts[k]/float64(n), k+"/op")
	}
	b.ReportMetric(total/float64(n), "sched-syscalls/op")
	for _, k := range io {
		b.ReportMetric(counts[k]/float64(n), k+"/op")
	}
}
