package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
)

// testWait bounds every wait here: a guard against a hang, never a speed
// assertion.
const testWait = 60 * time.Second

// newShell returns the tool with cfg over the defaults, closed at the end.
func newShell(t *testing.T, cfg Config) tools.Tool {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("no bash tool on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	d := DefaultConfig()
	if cfg.TimeoutMs == 0 {
		cfg.TimeoutMs = d.TimeoutMs
	}
	if cfg.MaxTimeoutMs == 0 {
		cfg.MaxTimeoutMs = d.MaxTimeoutMs
	}
	if cfg.MaxOutputChars == 0 {
		cfg.MaxOutputChars = d.MaxOutputChars
	}
	if cfg.MaxCommands == 0 {
		cfg.MaxCommands = d.MaxCommands
	}
	if cfg.Shell == "" {
		cfg.Shell = d.Shell
	}
	cfg.SpawnHelper = testkit.SpawnHelper(t)
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	tl := New(tools.Host{SpillDir: t.TempDir()}, cfg)
	t.Cleanup(func() { _ = tl.(tools.Closer).Close() })
	return tl
}

func call(t *testing.T, tl tools.Tool, cwd string, args any) *tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := tl.Call(ctx, &tools.Call{ID: "call_1", Session: tools.Session{ID: "s", Key: "s", Cwd: cwd}, Arguments: json.RawMessage(raw)})
	if err != nil {
		t.Fatalf("Call(%s): %v", raw, err)
	}
	return res
}

func batch(commands ...string) map[string]any {
	return map[string]any{"action": map[string]any{"commands": commands}}
}

// outputs decodes a result's output list through JSON, as a client sees it.
type item struct {
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
	Outcome struct {
		Type     string `json:"type"`
		ExitCode *int   `json:"exit_code"`
	} `json:"outcome"`
}

func outputs(t *testing.T, res *tools.Result) []item {
	t.Helper()
	b, err := json.Marshal(res.Structured["output"])
	if err != nil {
		t.Fatal(err)
	}
	var out []item
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("output %s: %v", b, err)
	}
	return out
}

func exit(code int) string { return fmt.Sprintf("exit %d", code) }

func (i item) end() string {
	if i.Outcome.Type == "timeout" {
		return "timeout"
	}
	if i.Outcome.ExitCode == nil {
		return "exit ?"
	}
	return exit(*i.Outcome.ExitCode)
}

// Issue 13: each command runs in order, with bash -c in the session's
// directory, and nothing carries over; stdout and stderr come apart, and
// a failing command does not stop the ones after it.
func TestBatch(t *testing.T) {
	tl := newShell(t, Config{})
	cwd := t.TempDir()
	res := call(t, tl, cwd, batch("pwd", "echo out; echo err >&2; exit 3", "cd /; X=1", "pwd; echo ${X:-unset}", "printf 'no newline'"))
	if res.IsError {
		t.Fatal(res.Text)
	}
	want := []struct{ stdout, stderr, end string }{
		{cwd + "\n", "", exit(0)},
		{"out\n", "err\n", exit(3)},
		{"", "", exit(0)},
		{cwd + "\nunset\n", "", exit(0)},
		{"no newline", "", exit(0)},
	}
	got := outputs(t, res)
	if len(got) != len(want) {
		t.Fatalf("%d outputs, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Stdout != w.stdout || got[i].Stderr != w.stderr || got[i].end() != w.end {
			t.Errorf("command %d: %+v, want %+v", i, got[i], w)
		}
	}
	for _, part := range []string{"$ pwd\n" + cwd + "\n", "$ echo out; echo err >&2; exit 3\nout\n[stderr]\nerr\n[exit code: 3]", "$ printf 'no newline'\nno newline"} {
		if !strings.Contains(res.Text, part) {
			t.Errorf("text lacks %q:\n%s", part, res.Text)
		}
	}
	if res.Structured["truncated"] != false || res.Structured["ran"] != 5 {
		t.Fatalf("facts: %v", res.Structured)
	}
	if _, ok := res.Structured["max_output_length"]; ok {
		t.Fatal("max_output_length reported though the call gave none")
	}
}

// Issue 13, hostile input: wrong arguments run nothing, and say so both as
// an error text and as an output the model reads where it expects one.
func TestArgumentErrors(t *testing.T) {
	tl := newShell(t, Config{MaxCommands: 3})
	for _, c := range []struct{ args, want string }{
		{`{}`, `"action" is required`},
		{`{"action": {}}`, `"action.commands" is required`},
		{`{"action": {"commands": []}}`, `"action.commands" is empty`},
		{`{"action": {"commands": "ls"}}`, `"action.commands" must be an array, got string`},
		{`{"action": {"commands": [1]}}`, `must be`},
		{`{"action": {"commands": ["ls"], "env": {}}}`, `unknown argument "action.env"`},
		{`{"commands": ["ls"]}`, `unknown argument "commands"; the arguments are {"action"`},
		{`{"action": {"commands": ["a","b","c","d"]}}`, `holds 4 commands; one call runs at most 3`},
		{`{"action": {"commands": ["ls"], "timeout_ms": 0}}`, `"action.timeout_ms" must be a positive number`},
		{`{"action": {"commands": ["ls"], "max_output_length": -1}}`, `"action.max_output_length" must be 0 or more`},
	} {
		res := call(t, tl, t.TempDir(), c.args)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s: %q, want an error containing %q", c.args, res.Text, c.want)
			continue
		}
		out := outputs(t, res)
		if len(out) != 1 || out[0].Stderr != res.Text || out[0].Stdout != "" || out[0].end() != exit(usageExit) {
			t.Errorf("%s: output %+v", c.args, out)
		}
	}
}

// Issue 13, hostile input: a command that times out ends the batch; the
// commands after it do not run, and nothing it started survives.
func TestTimeoutEndsTheBatch(t *testing.T) {
	tl := newShell(t, Config{})
	marker := testkit.Marker()
	defer testkit.KillProcs(marker)
	res := call(t, tl, t.TempDir(), map[string]any{"action": map[string]any{
		"commands":   []string{"echo first", "echo started; (sleep " + marker + " &); sleep " + marker, "echo never", "echo never"},
		"timeout_ms": 3000,
	}})
	out := outputs(t, res)
	if len(out) != 2 || out[0].Stdout != "first\n" || out[0].end() != exit(0) || out[1].end() != "timeout" {
		t.Fatalf("outputs: %+v", out)
	}
	if out[1].Stdout != "started\n" && out[1].Stdout != "" {
		t.Fatalf("timed-out stdout: %q", out[1].Stdout)
	}
	if res.Structured["timedOut"] != true || res.Structured["skipped"] != 2 {
		t.Fatalf("facts: %v", res.Structured)
	}
	for _, part := range []string{"[timed out after 3 seconds]", "[the 2 commands after it did not run"} {
		if !strings.Contains(res.Text, part) {
			t.Fatalf("text lacks %q:\n%s", part, res.Text)
		}
	}
	testkit.WaitNoProcs(t, marker, "a timed-out command's processes")
}

// A timeout_ms above maxTimeoutMs is lowered to it, not refused: the model
// reads a timeout outcome.
func TestTimeoutIsCapped(t *testing.T) {
	tl := newShell(t, Config{TimeoutMs: 1000, MaxTimeoutMs: 2000})
	res := call(t, tl, t.TempDir(), map[string]any{"action": map[string]any{"commands": []string{"sleep 600"}, "timeout_ms": 86_400_000}})
	if out := outputs(t, res); len(out) != 1 || out[0].end() != "timeout" || !strings.Contains(res.Text, "[timed out after 2 seconds]") {
		t.Fatalf("%+v\n%s", out, res.Text)
	}
}

// Issue 13, hostile input: output far past max_output_length is cut to it,
// all outputs of the call together, counted in characters; short outputs
// keep all of theirs; a cut one keeps its beginning and end.
func TestMaxOutputLength(t *testing.T) {
	tl := newShell(t, Config{})
	const limit = 1000
	res := call(t, tl, t.TempDir(), map[string]any{"action": map[string]any{
		"commands": []string{
			"echo short",
			"printf 'BEGIN'; yes 'éééééééééé' | head -n 100000 | tr -d '\\n'; printf 'END'",
			"seq 1 100000 >&2",
		},
		"max_output_length": limit,
	}})
	out := outputs(t, res)
	total := 0
	for _, o := range out {
		total += utf8.RuneCountInString(o.Stdout) + utf8.RuneCountInString(o.Stderr)
		if !utf8.ValidString(o.Stdout) || !utf8.ValidString(o.Stderr) {
			t.Fatal("invalid UTF-8 in the output")
		}
	}
	if total > limit {
		t.Fatalf("%d characters in all, limit %d", total, limit)
	}
	if out[0].Stdout != "short\n" {
		t.Fatalf("the short output was cut: %q", out[0].Stdout)
	}
	big := out[1].Stdout
	if !strings.HasPrefix(big, "BEGINéé") || !strings.HasSuffix(big, "ééEND") || !strings.Contains(big, "characters left out ...]") {
		t.Fatalf("cut output: %q…%q", big[:40], big[len(big)-40:])
	}
	if !strings.HasPrefix(out[2].Stderr, "1\n2\n") || !strings.HasSuffix(out[2].Stderr, "99999\n100000\n") {
		t.Fatalf("cut stderr: %q", out[2].Stderr)
	}
	if res.Structured["truncated"] != true || res.Structured["max_output_length"] != int64(limit) {
		t.Fatalf("facts: %v", res.Structured)
	}
	if !strings.Contains(res.Text, "[output cut to 1000 characters in all") {
		t.Fatalf("text:\n%s", res.Text)
	}
}

// max_output_length 0 keeps no output at all, and every outcome; the
// tool's own maxOutputChars bounds a call that asks for more.
func TestMaxOutputLengthEdges(t *testing.T) {
	tl := newShell(t, Config{MaxOutputChars: 500})
	res := call(t, tl, t.TempDir(), map[string]any{"action": map[string]any{"commands": []string{"echo a; echo b >&2", "exit 4"}, "max_output_length": 0}})
	out := outputs(t, res)
	if len(out) != 2 || out[0].Stdout != "" || out[0].Stderr != "" || out[1].end() != exit(4) {
		t.Fatalf("max_output_length 0: %+v", out)
	}
	res = call(t, tl, t.TempDir(), map[string]any{"action": map[string]any{"commands": []string{"seq 1 10000"}, "max_output_length": 1_000_000}})
	if n := utf8.RuneCountInString(outputs(t, res)[0].Stdout); n > 500 {
		t.Fatalf("%d characters past maxOutputChars 500", n)
	}
	if res.Structured["max_output_length"] != int64(1_000_000) {
		t.Fatalf("the model's max_output_length is reported as given: %v", res.Structured)
	}
}

// Issue 13, hostile input: output that is not UTF-8 reaches the model as
// valid text, the bad bytes as U+FFFD.
func TestInvalidUTF8(t *testing.T) {
	tl := newShell(t, Config{})
	res := call(t, tl, t.TempDir(), batch(`printf 'a\xff\xfeb\n'; printf '\xc3' >&2`))
	out := outputs(t, res)
	// One U+FFFD per bad byte, as bash's output reads.
	if out[0].Stdout != "a\uFFFD\uFFFDb\n" || out[0].Stderr != "\uFFFD" {
		t.Fatalf("%+v", out)
	}
	if !strings.Contains(res.Text, "U+FFFD") {
		t.Fatalf("text:\n%s", res.Text)
	}
}

// A command killed by a signal reports 128 plus the signal, as a shell
// does; one that cannot start reports 127.
func TestSignalAndStartFailure(t *testing.T) {
	tl := newShell(t, Config{})
	res := call(t, tl, t.TempDir(), batch("kill -9 $$", "kill -TERM $$"))
	if out := outputs(t, res); out[0].end() != exit(137) || out[1].end() != exit(143) {
		t.Fatalf("%+v", out)
	}
	if !strings.Contains(res.Text, "[killed by signal: SIGKILL; exit code 137]") {
		t.Fatalf("text:\n%s", res.Text)
	}
	broken := newShell(t, Config{Shell: "/nonexistent/bash"})
	res = call(t, broken, t.TempDir(), batch("true", "true"))
	out := outputs(t, res)
	if len(out) != 2 || out[0].end() != exit(startExit) || !strings.HasPrefix(out[0].Stderr, "could not start the command: ") {
		t.Fatalf("%+v", out)
	}
}

// Cancelling the call stops the running command and everything it
// started, and the call returns the context's error.
func TestCancel(t *testing.T) {
	tl := newShell(t, Config{})
	marker := testkit.Marker()
	defer testkit.KillProcs(marker)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tl.Call(ctx, &tools.Call{Session: tools.Session{ID: "s", Key: "s", Cwd: t.TempDir()}, Arguments: json.RawMessage(`{"action":{"commands":["setsid sleep ` + marker + ` & sleep ` + marker + `","echo never"]}}`)})
		done <- err
	}()
	testkit.WaitProcs(t, marker, 2)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(testWait):
		t.Fatal("the call did not return after its cancellation")
	}
	testkit.WaitNoProcs(t, marker, "a cancelled command's processes")
}

// Closing the session kills what its commands started.
func TestCloseSession(t *testing.T) {
	tl := newShell(t, Config{})
	marker := testkit.Marker()
	defer testkit.KillProcs(marker)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = tl.Call(context.Background(), &tools.Call{Session: tools.Session{ID: "s", Key: "k", Cwd: t.TempDir()}, Arguments: json.RawMessage(`{"action":{"commands":["sleep ` + marker + `"]}}`)})
	}()
	testkit.WaitProcs(t, marker, 1)
	tl.(tools.SessionCloser).CloseSession("k")
	testkit.WaitNoProcs(t, marker, "the closed session's command")
	<-done
}

func TestDeclarationAndConfig(t *testing.T) {
	tl := newShell(t, Config{})
	n := tl.(tools.Native)
	if d := n.Declaration(tools.FormatOpenAIResponses); len(d) != 1 || d["type"] != "shell" {
		t.Fatalf("declaration: %v", d)
	}
	if d := n.Declaration(tools.FormatAnthropic); d != nil {
		t.Fatalf("anthropic: %v", d)
	}
	if !json.Valid(tl.InputSchema()) || !strings.Contains(tl.Description(), "action.commands") {
		t.Fatal("schema or description")
	}
	c := DefaultConfig()
	c.Name = "sh"
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "cannot be changed") {
		t.Fatalf("renamed: %v", err)
	}
	c = DefaultConfig()
	c.TimeoutMs = c.MaxTimeoutMs + 1
	if err := c.Check(); err == nil {
		t.Fatal("timeoutMs above maxTimeoutMs accepted")
	}
	if got := DefaultConfig(); got.LongestCall() < time.Duration(DefaultMaxCommands*DefaultMaxTimeoutMs)*time.Millisecond {
		t.Fatalf("LongestCall %v is shorter than a full batch of timeouts", got.LongestCall())
	}
}

func TestPresentation(t *testing.T) {
	tl := newShell(t, Config{})
	cwd := t.TempDir()
	args := json.RawMessage(`{"action":{"commands":["ls","false"]}}`)
	c := &tools.Call{ID: "call_7", Session: tools.Session{Cwd: cwd}, Arguments: args}
	p := tl.Present(c, nil)
	if p.Title != "ls; false" || p.Kind != "execute" || p.Meta["terminal_info"] == nil {
		t.Fatalf("card: %+v", p)
	}
	res := call(t, tl, cwd, string(args))
	p = tl.Present(c, res)
	exitInfo := p.Meta["terminal_exit"].(map[string]any)
	if p.Status != "failed" || exitInfo["exit_code"] != 1 {
		t.Fatalf("card with result: %+v", p)
	}
	c.Arguments = json.RawMessage(`{"action":{"commands":[]}}`)
	if p := tl.Present(c, nil); p.Kind != "other" {
		t.Fatalf("generic card: %+v", p)
	}
}

// BenchmarkBatch is one shell call of n commands that print a line each:
// what a batch costs per command, against the one-shot bash it is built on
// (internal/tools/bash's benchmarks).
func BenchmarkBatch(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("commands=%d", n), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.SpawnHelper = testkit.SpawnHelper(b)
			tl := New(tools.Host{SpillDir: b.TempDir()}, cfg)
			defer tl.(tools.Closer).Close()
			commands := make([]string, n)
			for i := range commands {
				commands[i] = "echo hello"
			}
			raw, _ := json.Marshal(batch(commands...))
			cwd := b.TempDir()
			b.ResetTimer()
			for range b.N {
				res, err := tl.Call(context.Background(), &tools.Call{Session: tools.Session{Key: "s", Cwd: cwd}, Arguments: raw})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
