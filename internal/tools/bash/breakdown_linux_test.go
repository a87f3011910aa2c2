//go:build linux

package bash_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// BenchmarkOneShotBreakdown is a one-shot `true` built up a step at a time,
// every way once per iteration, alternated so that a shared machine's drift
// falls on all of them alike; it reports each way's median wall time and
// mean CPU (of the processes it reaps, and of this process): os/exec with
// output pipes (what subprocess.run does), a supervisor exec'd for bash
// with the same pipes read to their end, the same through a spare, and the
// whole tool call both ways (the tool's own work on top: the output files
// or pipes, the environment, the result). The library's tool has no spare
// (spawnhelper.UseSpares); the executable's has one.
func BenchmarkOneShotBreakdown(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	dir := b.TempDir()
	spares := spawnhelper.NewSpares(helper)
	defer spares.Close()
	withSpare := bash.New(tools.Host{SpillDir: b.TempDir()}, bash.Config{SpawnHelper: helper})
	defer withSpare[0].(tools.Closer).Close()
	bash.WithSpares(withSpare)
	execd := bash.New(tools.Host{SpillDir: b.TempDir()}, bash.Config{SpawnHelper: helper})
	defer execd[0].(tools.Closer).Close()
	call := &tools.Call{ID: "b", Session: tools.Session{ID: "s", Key: "s", Cwd: dir},
		Arguments: json.RawMessage(`{"command":"true","description":"Do nothing"}`)}
	supervised := func(start func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error)) func() {
		return func() {
			or, ow, _ := os.Pipe()
			er, ew, _ := os.Pipe()
			p, err := start(context.Background(), spawnhelper.Spec{Helper: helper, Path: bashPath, Args: []string{"bash", "-c", "true"}, Dir: dir, Stdout: ow, Stderr: ew})
			_, _ = ow.Close(), ew.Close()
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.ReadAll(or)
			_, _ = io.ReadAll(er)
			_, _ = or.Close(), er.Close()
			if st, err := p.Wait(); err != nil || !st.Success() {
				b.Fatalf("%v %v", st, err)
			}
		}
	}
	tool := func(ts []tools.Tool) func() {
		return func() {
			res, err := ts[0].Call(b.Context(), call)
			if err != nil || res.Text != "[no output]" {
				b.Fatalf("%v %v", res, err)
			}
		}
	}
	ways := []struct {
		name string
		run  func()
	}{
		{"exec", func() {
			cmd := exec.Command(bashPath, "-c", "true")
			cmd.Dir = dir
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}},
		{"start", supervised(spawnhelper.Start)},
		{"spare", supervised(spares.Start)},
		{"tool-exec", tool(execd)},
		{"tool-spare", tool(withSpare)},
	}
	for _, w := range ways {
		w.run()
	}
	wall := make([][]time.Duration, len(ways))
	kids := make([]time.Duration, len(ways))
	self := make([]time.Duration, len(ways))
	cpu := func(who int) time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(who, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	n := 0
	for b.Loop() {
		for i, w := range ways {
			c0, s0, t0 := cpu(syscall.RUSAGE_CHILDREN), cpu(syscall.RUSAGE_SELF), time.Now()
			w.run()
			wall[i] = append(wall[i], time.Since(t0))
			kids[i] += cpu(syscall.RUSAGE_CHILDREN) - c0
			self[i] += cpu(syscall.RUSAGE_SELF) - s0
		}
		n++
	}
	for i, w := range ways {
		slices.Sort(wall[i])
		b.ReportMetric(float64(wall[i][len(wall[i])/2].Microseconds()), w.name+"-p50-us")
		b.ReportMetric(float64((kids[i] / time.Duration(n)).Microseconds()), w.name+"-kids-cpu-us")
		b.ReportMetric(float64((self[i] / time.Duration(n)).Microseconds()), w.name+"-self-cpu-us")
	}
}
