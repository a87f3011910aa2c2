package bash_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// Issue 10: finished background tasks nobody reads do not keep their output
// in memory for the runtime's life. 100 tasks print 1 MiB each and finish
// unread; the heap grows by far less than the 100 MiB of output (the
// runtime-wide budget is 32 MiB), and each task's bash_output still shows
// the latest part of its output and names its log, which holds all of it.
func TestUnreadTaskOutputMemoryIsBounded(t *testing.T) {
	const tasks, size = 100, 1 << 20
	k := newKit(t, bash.Config{MaxTasks: tasks})
	a := session("a", t.TempDir())
	heap0, rss0 := memNow()
	ids := make([]string, tasks)
	for i := range ids {
		ids[i] = startTask(t, k, a, fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x; printf 'end of %d\\n'", size, i))
	}
	waitFor(t, "every task finished", func() bool { return len(k.notices.all()) >= tasks })
	heap1, rss1 := memNow()
	t.Logf("%d tasks with %d MiB of unread output: heap %d -> %d MiB, RSS %d -> %d MiB",
		tasks, tasks*size>>20, heap0>>20, heap1>>20, rss0>>20, rss1>>20)
	if grew := heap1 - heap0; grew > 64<<20 {
		t.Fatalf("the heap grew by %d MiB holding unread task output", grew>>20)
	}
	for i, id := range ids {
		res := call(t, k.output, a, task(id))
		log, _ := res.Structured["spillPath"].(string)
		data, err := os.ReadFile(log)
		if err != nil || len(data) != size+len(fmt.Sprintf("end of %d\n", i)) {
			t.Fatalf("%s: log %q: %d bytes, %v", id, log, len(data), err)
		}
		want := "[... " + strconv.Itoa(len(data)-30000) + " bytes of earlier output not shown; full output: " + log + "]\n" +
			string(data[len(data)-30000:]) + "[status: completed, exit code: 0]"
		if res.Text != want {
			t.Fatalf("%s: read %q…%q", id, res.Text[:min(len(res.Text), 120)], res.Text[max(0, len(res.Text)-60):])
		}
		if again := call(t, k.output, a, task(id)); again.Text != "[no new output]\n[status: completed, exit code: 0]" {
			t.Fatalf("%s: second read %q", id, again.Text)
		}
	}
	heap2, rss2 := memNow()
	t.Logf("after reading every task: heap %d MiB, RSS %d MiB", heap2>>20, rss2>>20)
}

// memNow returns the live heap after a collection, and the process's
// resident set size where /proc tells it.
func memNow() (heap, rss uint64) {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				rss = kb << 10
			}
		}
	}
	return m.HeapInuse, rss
}

// Issue 10: without log files (the spill directory cannot be written) the
// budget still holds: the unread output of the earliest finished tasks is
// dropped, and their next read says so plainly.
func TestUnreadTaskOutputWithoutLogsIsBounded(t *testing.T) {
	const tasks, size = 48, 1 << 20
	n := &noticeLog{ch: make(chan notice, 64)}
	ts := bash.New(tools.Host{Notify: n.add, SpillDir: filepath.Join(t.TempDir(), "missing")}, bash.Config{MaxTasks: tasks, SpawnHelper: testkit.SpawnHelper(t)})
	k := &kit{bash: ts[0], output: ts[1], kill: ts[2], notices: n}
	t.Cleanup(func() { _ = k.bash.(tools.Closer).Close() })
	a := session("a", t.TempDir())
	heap0, _ := memNow()
	for range tasks {
		startTask(t, k, a, fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", size))
	}
	waitFor(t, "every task finished", func() bool { return len(k.notices.all()) >= tasks })
	heap1, _ := memNow()
	t.Logf("%d tasks with %d MiB of unread output and no logs: heap %d -> %d MiB", tasks, tasks*size>>20, heap0>>20, heap1>>20)
	if grew := heap1 - heap0; grew > 40<<20 {
		t.Fatalf("the heap grew by %d MiB holding unread task output", grew>>20)
	}
	res := call(t, k.output, a, task("bash-1"))
	if !strings.Contains(res.Text, "bytes of earlier output not shown; the full output log could not be written") ||
		!strings.Contains(res.Text, "unread output of background tasks outgrew the memory set aside for it, so this task's was dropped") {
		t.Fatalf("read of a dropped task: %q", res.Text[:min(len(res.Text), 400)])
	}
	last := call(t, k.output, a, task(fmt.Sprintf("bash-%d", tasks)))
	if !strings.HasSuffix(last.Text, strings.Repeat("x", 100)+"\n[status: completed, exit code: 0]") {
		t.Fatalf("the latest task lost its output: %q", last.Text[max(0, len(last.Text)-200):])
	}
}
