package persistent

import (
	"encoding/json"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

func TestPresent(t *testing.T) {
	f := newFixture(t, Config{})
	call := &tools.Call{ID: "c1", Session: tools.Session{ID: "s", Key: "s", Cwd: f.cwd}, Arguments: args("echo hi; exit 3")}
	p := f.tool.Present(call, nil)
	if p.Title != "echo hi; exit 3" || p.RawInput != "echo hi; exit 3" || p.Kind != "execute" || p.Status != "" {
		t.Fatalf("call card %+v", p)
	}
	info, _ := p.Meta["terminal_info"].(map[string]any)
	if info["terminal_id"] != "c1" || info["cwd"] != f.cwd {
		t.Fatalf("terminal_info %v", p.Meta)
	}
	res, err := f.tool.Call(t.Context(), call)
	if err != nil {
		t.Fatal(err)
	}
	p = f.tool.Present(call, res)
	exit, _ := p.Meta["terminal_exit"].(map[string]any)
	// Issue 14: a non-zero exit is a failed card (as codex-acp reports it).
	if p.Status != "failed" || exit["exit_code"] != 3 || exit["signal"] != nil || exit["terminal_id"] != "c1" {
		t.Fatalf("result card %+v", p)
	}
	raw, _ := p.RawOutput.(map[string]any)
	if raw["output"] != "hi\n" || raw["exit_code"] != 3 {
		t.Fatalf("rawOutput %v", p.RawOutput)
	}
	if _, err := json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	// Replay gives the same card.
	if q := f.tool.Present(call, res); q.Title != p.Title || q.Status != p.Status {
		t.Fatal("Present is not a pure function of its inputs")
	}
}

// Issue 14: the card's status follows the command: completed for exit 0,
// failed for a non-zero exit, a timeout or a shell that died.
func TestPresentStatus(t *testing.T) {
	f := newFixture(t, Config{})
	for _, tc := range []struct {
		res  *tools.Result
		want string
	}{
		{&tools.Result{Structured: map[string]any{"exitCode": 0, "shellReset": false}}, "completed"},
		{&tools.Result{Structured: map[string]any{"exitCode": float64(0), "shellReset": true}}, "completed"}, // exit 0 ended the shell
		{&tools.Result{Structured: map[string]any{"exitCode": float64(2)}}, "failed"},
		{&tools.Result{Structured: map[string]any{"exitCode": nil, "timedOut": true, "shellReset": true}}, "failed"},
		{&tools.Result{Structured: map[string]any{"exitCode": nil, "signal": "SIGKILL", "shellReset": true}}, "failed"},
		{&tools.Result{Structured: map[string]any{"exitCode": nil, "shellReset": true}}, "failed"},
		{&tools.Result{Text: "bad", IsError: true}, "failed"},
	} {
		call := &tools.Call{ID: "c1", Session: tools.Session{ID: "s", Cwd: f.cwd}, Arguments: args("true")}
		if p := f.tool.Present(call, tc.res); p.Status != tc.want {
			t.Errorf("%+v: status %q, want %q", tc.res.Structured, p.Status, tc.want)
		}
	}
}

func TestPresentMalformedArguments(t *testing.T) {
	tool := New(tools.Host{}, Config{})
	for _, raw := range []string{`{"command": 5}`, `not json`, `{}`, ``} {
		p := tool.Present(&tools.Call{ID: "x", Arguments: []byte(raw)}, &tools.Result{Text: "bad", IsError: true})
		if p.Kind != "other" || p.Title != "bash" || p.Status != "failed" {
			t.Errorf("%q: %+v", raw, p)
		}
	}
	if p := tool.Present(nil, nil); p.Kind != "other" {
		t.Errorf("nil call: %+v", p)
	}
}
