package bash_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

func bashCall(s tools.Session, args string) *tools.Call {
	return &tools.Call{ID: "tc-1", Session: s, Arguments: json.RawMessage(args)}
}

// Issue 4: a bash call renders as a terminal card titled with the exact
// command, with the description above it and the cwd it runs in.
func TestPresentStart(t *testing.T) {
	k := newKit(t, bash.Config{})
	s := session("a", "/srv/project")
	for _, tc := range []struct{ workdir, cwd string }{
		{"", "/srv/project"},
		{"src", "/srv/project/src"},
		{"../other/./x", "/srv/other/x"},
		{"/abs/dir/", "/abs/dir"},
	} {
		args, _ := json.Marshal(map[string]any{"command": "ls -la src", "description": "List the source files", "workdir": tc.workdir})
		p := k.bash.Present(bashCall(s, string(args)), nil)
		want := tools.Presentation{
			Title:    "ls -la src",
			Kind:     "execute",
			Content:  []tools.ContentBlock{tools.TextBlock("List the source files")},
			RawInput: "ls -la src",
			Meta:     map[string]any{"terminal_info": map[string]any{"terminal_id": "tc-1", "cwd": tc.cwd}},
		}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("workdir %q:\n got %#v\nwant %#v", tc.workdir, p, want)
		}
	}
	// Without a session cwd a relative workdir has no absolute place: no cwd.
	p := k.bash.Present(bashCall(session("", ""), `{"command":"ls","description":"List","workdir":"rel"}`), nil)
	if info := p.Meta["terminal_info"].(map[string]any); info["cwd"] != nil {
		t.Errorf("cwd = %v", info["cwd"])
	}
	// A background launch is no terminal: it ends while its task runs on.
	p = k.bash.Present(bashCall(s, `{"command":"make serve","description":"Start the dev server","run_in_background":true}`), nil)
	if p.Title != "make serve" || p.Kind != "execute" || p.Meta != nil {
		t.Errorf("background: %#v", p)
	}
}

// Issue 4: the result side carries the exact output, the exit status for
// terminal_exit and a fenced console block — from Structured, or parsed back
// from the text alone on replay.
func TestPresentResultRoundTrip(t *testing.T) {
	k := newKit(t, bash.Config{})
	dir := t.TempDir()
	s := session("a", dir)
	for _, tc := range []struct {
		command  string
		code     any
		signal   any
		timedOut bool
		status   string
	}{
		// Issue 14: a command that did not succeed is a failed card, as the
		// reference ACP adapters report it (codex-acp); the model still gets
		// an ordinary result.
		{"echo hi; echo err >&2", 0, nil, false, "completed"},
		{"printf 'a\\r\\nb'; exit 3", 3, nil, false, "failed"},
		{"kill -KILL $$", nil, "SIGKILL", false, "failed"},
		{"sleep 30", nil, "SIGTERM", true, "failed"},
		{"echo '[exit code: 7]'", 0, nil, false, "completed"}, // output that looks like a marker
	} {
		args, _ := json.Marshal(map[string]any{"command": tc.command, "description": "Run a command for a test", "timeoutMs": 300})
		c := bashCall(s, string(args))
		res, err := k.bash.Call(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		p := k.bash.Present(c, res)
		if p.Status != tc.status || p.Title != tc.command {
			t.Errorf("%s: status %q title %q", tc.command, p.Status, p.Title)
		}
		exit := p.Meta["terminal_exit"].(map[string]any)
		if exit["terminal_id"] != "tc-1" || exit["exit_code"] != tc.code || exit["signal"] != tc.signal {
			t.Errorf("%s: terminal_exit = %v, want code %v signal %v", tc.command, exit, tc.code, tc.signal)
		}
		raw := p.RawOutput.(map[string]any)
		if raw["output"] != res.Raw || raw["exit_code"] != tc.code || (raw["timed_out"] == true) != tc.timedOut {
			t.Errorf("%s: rawOutput = %v", tc.command, raw)
		}
		fenced := "```console\n" + strings.TrimSuffix(res.Text, "\n") + "\n```"
		if len(p.Content) != 2 || p.Content[1].Content.Text != fenced {
			t.Errorf("%s: content = %q", tc.command, p.Content[len(p.Content)-1].Content.Text)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Errorf("%s: %v", tc.command, err)
		}

		// Replay: the result came back through JSON with only its text.
		replayed := k.bash.Present(c, &tools.Result{Text: res.Text, IsError: res.IsError})
		rexit := replayed.Meta["terminal_exit"].(map[string]any)
		if tc.command == "echo '[exit code: 7]'" {
			continue // the text alone cannot tell; Structured did above
		}
		if rexit["exit_code"] != tc.code || rexit["signal"] != tc.signal || replayed.Status != tc.status {
			t.Errorf("%s: replayed terminal_exit = %v, status %q", tc.command, rexit, replayed.Status)
		}
		// Replay through JSON: numbers become float64.
		var back map[string]any
		b, _ := json.Marshal(res.Structured)
		_ = json.Unmarshal(b, &back)
		jexit := k.bash.Present(c, &tools.Result{Text: res.Text, Structured: back, Raw: res.Raw}).Meta["terminal_exit"].(map[string]any)
		if jexit["exit_code"] != tc.code || jexit["signal"] != tc.signal {
			t.Errorf("%s: JSON-replayed terminal_exit = %v", tc.command, jexit)
		}
	}
}

// A failed call still ends its terminal card, with no exit status.
func TestPresentErrorResult(t *testing.T) {
	k := newKit(t, bash.Config{})
	c := bashCall(session("a", t.TempDir()), `{"command":"ls","description":"List","workdir":"missing"}`)
	res, _ := k.bash.Call(t.Context(), c)
	p := k.bash.Present(c, res)
	exit := p.Meta["terminal_exit"].(map[string]any)
	if p.Status != "failed" || exit["exit_code"] != nil || exit["signal"] != nil {
		t.Errorf("presentation = %#v", p)
	}
}

// Issue 4: malformed or older argument shapes fall back to the generic card
// and nothing panics.
func TestPresentFallbacks(t *testing.T) {
	k := newKit(t, bash.Config{})
	s := session("a", "/w")
	weird := []*tools.Result{
		nil,
		{Text: ""},
		{Text: "x", Structured: map[string]any{"exitCode": "seven", "signal": 9, "timedOut": "yes"}},
		{Text: "x", Structured: map[string]any{"exitCode": 1e300}},
		{Text: "[exit code: 99999999999999999999]", IsError: true},
	}
	for _, tool := range []tools.Tool{k.bash, k.output, k.kill} {
		for _, args := range []string{``, `null`, `not json`, `{"command":5}`, `{"task_id":5}`, `{"command":"ls","restart":true}`, `{"command":""}`, `[]`} {
			for _, res := range weird {
				p := tool.Present(bashCall(s, args), res)
				if p.Title != tool.Name() || p.Kind != "other" {
					t.Errorf("%s %q: %#v", tool.Name(), args, p)
				}
			}
		}
		_ = tool.Present(nil, nil)
		_ = tool.Present(nil, &tools.Result{Text: "x"})
	}
	// Good arguments with odd results render without panicking.
	for _, res := range weird {
		_ = k.bash.Present(bashCall(s, `{"command":"ls","description":"List"}`), res)
	}
}

// Issue 4: bash_output and bash_kill cards are scoped to their task.
func TestPresentTaskTools(t *testing.T) {
	k := newKit(t, bash.Config{})
	c := bashCall(session("a", "/w"), `{"task_id":"bash-3"}`)
	p := k.output.Present(c, nil)
	if p.Title != "Read output from background task bash-3" || p.RawInput != "bash-3" {
		t.Errorf("bash_output: %#v", p)
	}
	p = k.kill.Present(c, &tools.Result{Text: "Stopped background task bash-3.\n[status: killed]"})
	if p.Title != "Kill background task bash-3" || p.RawInput != "bash-3" || p.Status != "completed" ||
		p.Content[0].Content.Text != "Stopped background task bash-3.\n[status: killed]" {
		t.Errorf("bash_kill: %#v", p)
	}
}

func TestFenceOutlastsBackticks(t *testing.T) {
	k := newKit(t, bash.Config{})
	c := bashCall(session("a", t.TempDir()), "{\"command\":\"printf 'a ```` b'\",\"description\":\"Print backticks\"}")
	res, _ := k.bash.Call(t.Context(), c)
	got := k.bash.Present(c, res).Content[1].Content.Text
	if want := "`````console\na ```` b\n`````"; got != want {
		t.Errorf("fenced = %q, want %q", got, want)
	}
}

func TestToolSurface(t *testing.T) {
	k := newKit(t, bash.Config{TimeoutMs: 1000, MaxTimeoutMs: 5000})
	if k.bash.Name() != bash.NameBash || k.output.Name() != bash.NameOutput || k.kill.Name() != bash.NameKill {
		t.Errorf("names: %s %s %s", k.bash.Name(), k.output.Name(), k.kill.Name())
	}
	if d := k.bash.Description(); !strings.Contains(d, "default 1000, at most 5000") {
		t.Errorf("configured timeouts not in the description: %s", d)
	}
	def := newKit(t, bash.Config{})
	if d := def.bash.Description(); !strings.Contains(d, "default 120000, at most 600000") || !strings.Contains(d, "passed 30000 characters") {
		t.Errorf("default description: %s", d)
	}
	for _, tool := range []tools.Tool{k.bash, k.output, k.kill} {
		var schema struct {
			Type                 string         `json:"type"`
			Properties           map[string]any `json:"properties"`
			Required             []string       `json:"required"`
			AdditionalProperties *bool          `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil {
			t.Fatal(err)
		}
		if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties || len(schema.Required) == 0 {
			t.Errorf("%s schema: %s", tool.Name(), tool.InputSchema())
		}
		if tool.Description() == "" {
			t.Errorf("%s has no description", tool.Name())
		}
	}
	if !strings.Contains(string(k.bash.InputSchema()), `"maximum":5000`) {
		t.Errorf("bash schema does not carry the configured maximum: %s", k.bash.InputSchema())
	}
}
