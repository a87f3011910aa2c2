package bash_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// Documented behaviours of the one-shot tools that had no test (issue 18's
// audit); each names its claim in docs/TOOLS.md.

// docs/TOOLS.md, issue 18: "run_in_background: true
// returns at once … No timeout applies." The task outlives a foreground
// call of the same runtime that timed out, then finishes by itself with its
// own exit code and no timeout line.
func TestBackgroundTaskHasNoTimeout(t *testing.T) {
	k := newKit(t, bash.Config{TimeoutMs: 50, MaxTimeoutMs: 50})
	dir := t.TempDir()
	s := session("a", dir)
	id := startTask(t, k, s, "while [ ! -e go ]; do sleep 0.02; done; echo finished")
	fg := call(t, k.bash, s, map[string]any{"command": "sleep 30", "description": "Sleep past the timeout"})
	if fg.Structured["timedOut"] != true {
		t.Fatalf("the foreground call did not time out: %q %v", fg.Text, fg.Structured)
	}
	// The timeout has certainly passed for a task started before that call.
	if r := call(t, k.output, s, task(id)); r.Structured["status"] != "running" {
		t.Fatalf("the background task stopped with the timeout: %q %v", r.Text, r.Structured)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var last string
	waitFor(t, "the task to finish", func() bool {
		r := call(t, k.output, s, task(id))
		last += r.Text
		return r.Structured["status"] != "running"
	})
	if !strings.Contains(last, "finished\n") || !strings.HasSuffix(last, "[status: completed, exit code: 0]") || strings.Contains(last, "timed out") {
		t.Fatalf("reads %q", last)
	}
}

// docs/TOOLS.md, issue 18: bash_output ends with `[status:
// killed by signal: NAME]` for a task a signal ended (not bash_kill), and
// `[status: killed]` for one bash_kill ended.
func TestTaskStatusKilledBySignal(t *testing.T) {
	k := newKit(t, bash.Config{})
	s := session("a", t.TempDir())
	id := startTask(t, k, s, "echo before; kill -USR1 $$; echo after")
	var r *tools.Result
	seen := ""
	waitFor(t, "the task to end", func() bool {
		r = call(t, k.output, s, task(id))
		seen += r.Text
		return r.Structured["status"] != "running"
	})
	if !strings.HasSuffix(r.Text, "[status: killed by signal: SIGUSR1]") {
		t.Fatalf("final read %q", r.Text)
	}
	if r.Structured["status"] != "killed" || r.Structured["signal"] != "SIGUSR1" || r.Structured["exitCode"] != nil {
		t.Fatalf("structured %v", r.Structured)
	}
	if strings.Contains(seen, "after") {
		t.Fatalf("the command went on after the signal: %q", seen)
	}

	killed := startTask(t, k, s, "exec sleep 300")
	if res := call(t, k.kill, s, task(killed)); res.IsError {
		t.Fatalf("bash_kill: %q", res.Text)
	}
	r = call(t, k.output, s, task(killed))
	if !strings.HasSuffix(r.Text, "[status: killed]") || r.Structured["status"] != "killed" {
		t.Fatalf("after bash_kill: %q %v", r.Text, r.Structured)
	}
}

// docs/TOOLS.md, issue 18: when the per-task bound dropped
// unread output, bash_output says `[... N bytes of earlier output not shown;
// full output: PATH]`, with `omittedBytes` N and `truncated` true, and the
// log holds everything.
func TestTaskOmittedBytes(t *testing.T) {
	const total = 20000
	k := newKit(t, bash.Config{MaxLogBytes: 1024})
	s := session("a", t.TempDir())
	id := startTask(t, k, s, "head -c 20000 /dev/zero | tr '\\0' x")
	// No read until the task is done (its notice says so): everything past
	// the bound is dropped unread.
	select {
	case n := <-k.notices.ch:
		if !strings.Contains(n.text, id+" finished") {
			t.Fatalf("notice %q", n.text)
		}
	case <-time.After(testkit.ProcWait): // a hang guard
		t.Fatal("no notice that the task finished")
	}
	r := call(t, k.output, s, task(id))
	var omitted int
	switch n := r.Structured["omittedBytes"].(type) {
	case int:
		omitted = n
	case int64:
		omitted = int(n)
	}
	log, _ := r.Structured["spillPath"].(string)
	want := "bytes of earlier output not shown; full output: " + log + "]"
	if omitted <= 0 || r.Structured["truncated"] != true || !strings.Contains(r.Text, want) {
		t.Fatalf("read %q, structured %v", r.Text, r.Structured)
	}
	_, body, _ := strings.Cut(r.Text, want+"\n")
	body, _, _ = strings.Cut(body, "\n[status: ")
	kept := strings.Count(body, "x")
	if kept != len(body) {
		t.Fatalf("shown %q, want only the command's x's", body)
	}
	if omitted+kept != total || kept > 1024 {
		t.Fatalf("omittedBytes %d + %d shown != %d (bound 1024)", omitted, kept, total)
	}
	if b, err := os.ReadFile(log); err != nil || len(b) != total {
		t.Fatalf("log %s: %d bytes, %v", log, len(b), err)
	}
}

// docs/TOOLS.md, issue 18: `shell` names the bash the tool starts (from
// PATH by default): every command runs through it.
func TestShellOption(t *testing.T) {
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "my-bash")
	marker := filepath.Join(dir, "used")
	script := "#!/bin/sh\necho \"$@\" >> " + marker + "\nexec bash \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	k := newKit(t, bash.Config{Shell: wrapper})
	s := session("a", t.TempDir())
	if res := run(t, k, s, "echo through the wrapper"); res.Text != "through the wrapper\n" {
		t.Fatalf("text %q", res.Text)
	}
	id := startTask(t, k, s, "echo in the background")
	waitFor(t, "the task to end", func() bool { return call(t, k.output, s, task(id)).Structured["status"] != "running" })
	b, err := os.ReadFile(marker)
	if err != nil || strings.Count(string(b), "\n") != 2 {
		t.Fatalf("the configured shell ran %q times (%v), want once per command", b, err)
	}

	missing := newKit(t, bash.Config{Shell: filepath.Join(dir, "no-such-bash")})
	res := call(t, missing.bash, s, map[string]any{"command": "echo hi", "description": "Run"})
	if !strings.Contains(res.Text, "no-such-bash") {
		t.Fatalf("a missing shell: %v %q", res.IsError, res.Text)
	}
}
