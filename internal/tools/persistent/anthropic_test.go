package persistent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// anthropicFixture is a fixture whose tool is Anthropic's bash over the
// same persistent tool.
func anthropicFixture(t *testing.T) (*fixture, tools.Tool) {
	t.Helper()
	f := newFixture(t, Config{})
	return f, &anthropicTool{f.tool}
}

func callAnthropic(t *testing.T, f *fixture, tl tools.Tool, args string) *tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testWait)
	defer cancel()
	res, err := tl.Call(ctx, &tools.Call{ID: "toolu_1", Session: tools.Session{ID: "s", Key: "s", Cwd: f.cwd}, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("Call(%s): %v", args, err)
	}
	return res
}

// Issue 13: {"restart": true} replaces the shell: the state the model built
// is gone, everything the old shell started is killed, the result says so,
// and the next command runs in a fresh shell in the session's directory.
func TestAnthropicRestart(t *testing.T) {
	f, tl := anthropicFixture(t)
	if res := callAnthropic(t, f, tl, `{"command": "cd / && export KEEP=1 && sleep 300 & cd /tmp; X=2; echo ready"}`); res.Text != "ready\n" {
		t.Fatalf("command: %q", res.Text)
	}
	old := f.shellOf("s")
	sid := old.proc.Pid()
	eventually(t, "background job running", func() bool { return len(sessionProcs(t, sid)) >= 2 })

	res := callAnthropic(t, f, tl, `{"restart": true}`)
	if res.IsError || !strings.HasPrefix(res.Text, "The shell was restarted") || !strings.Contains(res.Text, f.cwd) {
		t.Fatalf("restart: %+v", res)
	}
	if res.Structured["restarted"] != true || res.Structured["shellReset"] != true {
		t.Fatalf("restart facts: %v", res.Structured)
	}
	if left := sessionProcs(t, sid); len(left) != 0 {
		t.Fatalf("processes of the old shell survived the restart: %v", left)
	}
	if fresh := f.shellOf("s"); fresh == nil || fresh == old {
		t.Fatal("no fresh shell after the restart")
	}
	// The next command runs in the fresh shell, without the old state and
	// without a reset notice: the restart's own result told it.
	if res := callAnthropic(t, f, tl, `{"command": "pwd; echo \"[$X]\""}`); res.Text != f.cwd+"\n[]\n" {
		t.Fatalf("after restart: %q", res.Text)
	}
}

// A restart replaces a shell the previous, cancelled call reset: the
// restart's result tells the model, and no stale notice follows.
func TestAnthropicRestartAfterCancel(t *testing.T) {
	f, tl := anthropicFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _ = tl.Call(ctx, &tools.Call{Session: tools.Session{ID: "s", Key: "s", Cwd: f.cwd}, Arguments: json.RawMessage(`{"command":"true"}`)})
	callAnthropic(t, f, tl, `{"restart": true}`)
	if res := callAnthropic(t, f, tl, `{"command": "echo hi"}`); res.Text != "hi\n" {
		t.Fatalf("after restart: %q", res.Text)
	}
}

// Issue 13: the input is {"command"} or {"restart": true}; anything else is
// refused with a message that says which to give, and runs nothing.
func TestAnthropicArguments(t *testing.T) {
	f, tl := anthropicFixture(t)
	for _, c := range []struct{ args, want string }{
		{`{}`, `"command" is required`},
		{`{"restart": false}`, `"restart" is false and there is no "command"`},
		{`{"command": "echo no", "restart": true}`, `give either "command" or "restart": true, not both`},
		{`{"command": "echo no", "timeout": 5}`, `unknown argument "timeout"`},
		{`{"restart": "yes"}`, `"restart" must be`},
	} {
		res := callAnthropic(t, f, tl, c.args)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s: %+v, want an error containing %q", c.args, res, c.want)
		}
	}
	if f.shellOf("s") != nil {
		t.Fatal("a refused call started a shell")
	}
	// "restart": false with a command is an ordinary command.
	if res := callAnthropic(t, f, tl, `{"command": "echo ok", "restart": false}`); res.Text != "ok\n" {
		t.Fatalf("restart false: %+v", res)
	}
}

func TestAnthropicDeclarationAndPresentation(t *testing.T) {
	f, tl := anthropicFixture(t)
	n := tl.(tools.Native)
	if d := n.Declaration(tools.FormatAnthropic); d["type"] != AnthropicType || d["name"] != NameAnthropic || len(d) != 2 {
		t.Fatalf("declaration: %v", d)
	}
	for _, format := range []string{"mcp", "openai", tools.FormatOpenAIResponses} {
		if d := n.Declaration(format); d != nil {
			t.Errorf("%s: %v, want none (a function tool)", format, d)
		}
	}
	if !json.Valid(tl.InputSchema()) || !strings.Contains(tl.Description(), "restart") {
		t.Fatal("schema or description")
	}
	call := &tools.Call{ID: "toolu_1", Session: tools.Session{Cwd: f.cwd}, Arguments: json.RawMessage(`{"restart":true}`)}
	if p := tl.Present(call, nil); p.Title != "Restart the shell" || p.Kind != "execute" {
		t.Fatalf("restart card: %+v", p)
	}
	call.Arguments = json.RawMessage(`{"command":"ls -la"}`)
	if p := tl.Present(call, nil); p.Title != "ls -la" || p.Meta["terminal_info"] == nil {
		t.Fatalf("command card: %+v", p)
	}
}

// The name is Anthropic's: config may not change it.
func TestAnthropicConfigName(t *testing.T) {
	c := DefaultAnthropicConfig()
	c.Name = "shell"
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "cannot be changed") {
		t.Fatalf("renamed: %v", err)
	}
	c.Name = NameAnthropic
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}
