package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The runtime process's side of a call over the process transport (issue
// 16): `shellport serve` as a child on pipes, as the Python client starts
// it, driven one call at a time. Reported per call: the CPU of every thread
// of the child (from schedstat, in µs) and their context switches (each
// wait for input or for bash is one; every further one is a hand-off
// between threads), with the round trip's p50 and p90.

// BenchmarkServeRoundTripTrue is a persistent `true`.
func BenchmarkServeRoundTripTrue(b *testing.B) {
	benchServe(b, "persistent", `{"name":"bash","session":"s1","arguments":{"command":"true"}}`)
}

// BenchmarkServeNoOpView is the no-op call: an editor view of a 2-byte
// file, no process involved.
func BenchmarkServeNoOpView(b *testing.B) {
	file := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(file, []byte("x\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	benchServe(b, "persistent", fmt.Sprintf(`{"name":"str_replace_editor","session":"s1","arguments":{"command":"view","path":%q}}`, file))
}

func benchServe(b *testing.B, profile, callParams string) {
	cmd := exec.Command(buildExecutable(b), "serve", "--config", `{"profile":"`+profile+`"}`)
	cmd.Dir = b.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("serve: %v\n%s", err, stderr.String())
		}
	})
	out := bufio.NewReader(stdout)
	id := 0
	call := func(method, params string) {
		id++
		if _, err := fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			b.Fatal(err)
		}
		line, err := out.ReadBytes('\n')
		if err != nil || !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"result":`)) ||
			bytes.Contains(line, []byte(`"isError":true`)) {
			b.Fatalf("reply to %s: %s (%v)\n%s", method, line, err, stderr.String())
		}
	}
	call("initialize", `{}`)
	call("session/new", `{"id":"s1","cwd":`+strconv.Quote(cmd.Dir)+`}`)
	for range 200 { // warm: the shell started, the pools filled
		call("tools/call", callParams)
	}
	pid := cmd.Process.Pid
	cpu0, cs0 := threadUsage(b, pid)
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		call("tools/call", callParams)
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	cpu1, cs1 := threadUsage(b, pid)
	n := float64(len(times))
	b.ReportMetric(float64(cpu1-cpu0)/1e3/n, "serve-cpu-us/op")
	b.ReportMetric(float64(cs1-cs0)/n, "serve-ctxsw/op")
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds()), "p90-ns")
}

// threadUsage sums, over the threads of pid, the time they ran (ns) and
// their context switches, voluntary or not.
func threadUsage(b *testing.B, pid int) (cpuNs, switches int64) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, task := range tasks {
		dir := fmt.Sprintf("/proc/%d/task/%s/", pid, task.Name())
		if sched, err := os.ReadFile(dir + "schedstat"); err == nil {
			if fields := strings.Fields(string(sched)); len(fields) > 0 {
				ns, _ := strconv.ParseInt(fields[0], 10, 64)
				cpuNs += ns
			}
		}
		status, err := os.ReadFile(dir + "status")
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(status), "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(name, "ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
				switches += n
			}
		}
	}
	return cpuNs, switches
}
