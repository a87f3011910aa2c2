package bash_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// Issue 4: a background task goes from running to completed; each read
// returns only what is new; the owner alone gets a completion notice.
func TestBackgroundLifecycle(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	a := session("a", dir)
	res := call(t, k.bash, a, map[string]any{
		"command":           "echo first; echo err-first >&2; while [ ! -e go ]; do sleep 0.02; done; echo second; exit 4",
		"description":       "Print twice with a pause",
		"run_in_background": true,
	})
	if res.IsError || res.Structured["taskId"] != "bash-1" || res.Structured["status"] != "running" {
		t.Fatalf("start: %v %q %v", res.IsError, res.Text, res.Structured)
	}
	if !strings.HasPrefix(res.Text, "Started background task bash-1.") {
		t.Errorf("start text = %q", res.Text)
	}
	logPath, _ := res.Structured["spillPath"].(string)

	var seen string
	waitFor(t, "the first lines", func() bool {
		r := call(t, k.output, a, task("bash-1"))
		if r.IsError || !strings.HasSuffix(r.Text, "[status: running]") {
			t.Fatalf("read while running: %v %q", r.IsError, r.Text)
		}
		if r.Text != "[no new output]\n[status: running]" {
			seen += strings.TrimSuffix(r.Text, "[status: running]")
		}
		return strings.Count(seen, "\n") >= 2
	})
	if seen != "first\nerr-first\n" {
		t.Errorf("first reads = %q", seen)
	}
	if r := call(t, k.output, a, task("bash-1")); r.Text != "[no new output]\n[status: running]" {
		t.Errorf("repeat read = %q", r.Text)
	}

	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var last *tools.Result
	seen = ""
	waitFor(t, "completion", func() bool {
		last = call(t, k.output, a, task("bash-1"))
		text, _, _ := strings.Cut(last.Text, "[status: ")
		if text != "[no new output]\n" {
			seen += text
		}
		return last.Structured["status"] != "running"
	})
	if seen != "second\n" || !strings.HasSuffix(last.Text, "[status: completed, exit code: 4]") {
		t.Errorf("final reads = %q, last %q", seen, last.Text)
	}
	if last.Structured["exitCode"] != 4 || last.Structured["status"] != "completed" {
		t.Errorf("structured = %v", last.Structured)
	}
	if r := call(t, k.output, a, task("bash-1")); r.Text != "[no new output]\n[status: completed, exit code: 4]" {
		t.Errorf("read after completion = %q", r.Text)
	}
	log, err := os.ReadFile(logPath)
	if err != nil || string(log) != "first\nerr-first\nsecond\n" {
		t.Errorf("log %q: %q, %v", logPath, log, err)
	}
	n := <-k.notices.ch
	if want := "Background task bash-1 finished (completed, exit code: 4): echo first; echo err-first >&2; while [ ! -e go ]; do sleep 0.02; done; echo se…"; n.session != "a" || n.text != want {
		t.Errorf("notice = %+v, want %q for a", n, want)
	}
	if all := k.notices.all(); len(all) != 1 {
		t.Errorf("notices = %v, want exactly one", all)
	}
}

// Issue 4: another session can neither read nor kill a task, while the
// owner still can; a call without a session cannot touch an owned task.
func TestOwnership(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	a, b, none := session("a", dir), session("b", dir), session("", dir)
	id := startTask(t, k, a, "echo hello; sleep 30")
	for _, s := range []tools.Session{b, none} {
		for _, tool := range []tools.Tool{k.output, k.kill} {
			res := call(t, tool, s, task(id))
			if !res.IsError || res.Text != "task bash-1 belongs to another session" {
				t.Errorf("%s from %q: %v %q", tool.Name(), s.ID, res.IsError, res.Text)
			}
		}
	}
	waitFor(t, "the owner to read", func() bool {
		r := call(t, k.output, a, task(id))
		return r.Text == "hello\n[status: running]"
	})
	res := call(t, k.kill, a, task(id))
	if res.IsError || res.Text != "Stopped background task bash-1.\n[status: killed]" {
		t.Errorf("kill: %v %q", res.IsError, res.Text)
	}
	// Still fenced after it finished.
	if res := call(t, k.output, b, task(id)); res.Text != "task bash-1 belongs to another session" {
		t.Errorf("read after finish from b: %q", res.Text)
	}
	res = call(t, k.kill, a, task(id))
	if res.IsError || res.Text != "Background task bash-1 had already finished (killed); nothing was stopped." {
		t.Errorf("second kill: %v %q", res.IsError, res.Text)
	}
	if all := k.notices.all(); len(all) != 0 {
		t.Errorf("a killed task sent notices: %v", all)
	}
}

// Issue 4: a task started without a session is open to everyone and sends
// no notice.
func TestOwnerlessTask(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	id := startTask(t, k, session("", dir), "echo shared")
	waitFor(t, "completion", func() bool {
		r := call(t, k.output, session("b", dir), task(id))
		if r.IsError {
			t.Fatalf("read from b: %q", r.Text)
		}
		return r.Structured["status"] == "completed"
	})
	if res := call(t, k.kill, session("c", dir), task(id)); res.IsError || !strings.Contains(res.Text, "already finished (completed, exit code: 0)") {
		t.Errorf("kill from c: %v %q", res.IsError, res.Text)
	}
	if all := k.notices.all(); len(all) != 0 {
		t.Errorf("ownerless task sent notices: %v", all)
	}
}

func TestUnknownTask(t *testing.T) {
	k := newKit(t, bash.Config{})
	s := session("a", t.TempDir())
	for _, tool := range []tools.Tool{k.output, k.kill} {
		for args, want := range map[string]string{
			`{"task_id":"bash-99"}`: `task "bash-99" not found`,
			`{"task_id":""}`:        `invalid arguments: "task_id" is required`,
			`{}`:                    `invalid arguments: "task_id" is required`,
			`{"task_id":7}`:         `invalid arguments: "task_id" must be a string, got number`,
			`{"id":"bash-1"}`:       `invalid arguments: unknown argument "id"`,
		} {
			if res := call(t, tool, s, args); !res.IsError || res.Text != want {
				t.Errorf("%s %s: %v %q, want %q", tool.Name(), args, res.IsError, res.Text, want)
			}
		}
	}
}

// Issue 4: killing a task reaches its grandchildren.
func TestKillTaskTree(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	a := session("a", dir)
	id := startTask(t, k, a, `(sleep 30 & echo $! >> pids; trap '' TERM; sleep 30) & echo $! >> pids; sleep 30 & echo $! >> pids; wait`)
	pids := readPids(t, filepath.Join(dir, "pids"), 3)
	killLater(t, pids...)
	if res := call(t, k.kill, a, task(id)); res.IsError || !strings.HasSuffix(res.Text, "[status: killed]") {
		t.Fatalf("kill: %v %q", res.IsError, res.Text)
	}
	waitDead(t, pids...)
}

// Issue 4: the task limit and the log bound give clear messages.
func TestTaskLimits(t *testing.T) {
	k := newKit(t, bash.Config{MaxTasks: 2, MaxLogBytes: 1000, MaxOutputChars: 500})
	dir := t.TempDir()
	a := session("a", dir)
	first := startTask(t, k, a, "sleep 30")
	startTask(t, k, a, "sleep 30")
	res := call(t, k.bash, a, map[string]any{"command": "true", "description": "One task too many", "run_in_background": true})
	if !res.IsError || res.Text != "too many background tasks are running (the limit is 2); stop one with bash_kill or wait for one to finish" {
		t.Errorf("third task: %v %q", res.IsError, res.Text)
	}
	// Foreground calls are not tasks.
	run(t, k, a, "true")
	call(t, k.kill, a, task(first))
	id := startTask(t, k, a, "seq 1 10000")
	if id != "bash-3" {
		t.Errorf("id = %q, want bash-3 (ids are not reused or skipped)", id)
	}
	n := <-k.notices.ch
	if !strings.HasPrefix(n.text, "Background task bash-3 finished (completed, exit code: 0)") {
		t.Fatalf("notice = %q", n.text)
	}
	res = call(t, k.output, a, task(id))
	want, _ := exec.Command("seq", "1", "10000").Output()
	logPath := res.Structured["spillPath"].(string)
	prefix := "[... 48394 bytes of earlier output not shown; full output: " + logPath + "]\n"
	if !strings.HasPrefix(res.Text, prefix) || !strings.HasSuffix(res.Text, "\n9999\n10000\n[status: completed, exit code: 0]") {
		t.Errorf("read = %q…%q", res.Text[:min(len(res.Text), 120)], tail(res.Text, 60))
	}
	if shown := strings.TrimSuffix(strings.TrimPrefix(res.Text, prefix), "[status: completed, exit code: 0]"); len(shown) != 500 {
		t.Errorf("shown %d characters, want 500", len(shown))
	}
	if got, _ := os.ReadFile(logPath); string(got) != string(want) {
		t.Errorf("log holds %d bytes, want %d", len(got), len(want))
	}
}
