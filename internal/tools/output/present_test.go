package output

import (
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// Issue 11: one card for both bash tools.
func TestCard(t *testing.T) {
	c := Command{Command: "make test", Description: "Run the tests", TerminalID: "call-1", Cwd: "/repo"}
	p := Card(c, nil)
	if p.Title != "make test" || p.Kind != "execute" || p.Status != "" || p.Meta["terminal_info"] == nil || len(p.Content) != 1 {
		t.Fatalf("call card %+v", p)
	}
	for _, tc := range []struct {
		r      Result
		status string
		code   any
		signal any
	}{
		{Result{Output: body("ok\n"), ExitCode: Code(0)}, "completed", 0, nil},
		{Result{Output: body("FAIL\n"), ExitCode: Code(1)}, "failed", 1, nil},
		{Result{Signal: "SIGKILL"}, "failed", nil, "SIGKILL"},
		{Result{TimedOut: true, ExitCode: Code(0)}, "failed", 0, nil},
		{Result{ShellReset: true}, "failed", nil, nil}, // a shell that vanished: no status known
		{Result{IsError: true}, "failed", nil, nil},
	} {
		res := tc.r.ToolResult()
		p := Card(c, res)
		exit, _ := p.Meta["terminal_exit"].(map[string]any)
		if p.Status != tc.status || exit["exit_code"] != tc.code || exit["signal"] != tc.signal {
			t.Errorf("%q: status %s, exit %v", res.Text, p.Status, exit)
		}
		last := p.Content[len(p.Content)-1].Content.Text
		if last != "```console\n"+strings.TrimSuffix(res.Text, "\n")+"\n```" {
			t.Errorf("%q: not fenced: %q", res.Text, last)
		}
		if raw := p.RawOutput.(map[string]any); raw["output"] != res.Raw {
			t.Errorf("raw output %v", raw)
		}
		// A replayed result without its facts reads the same status from
		// the text.
		replay := &tools.Result{Text: res.Text, IsError: res.IsError}
		if got := Card(c, replay); got.Status != p.Status && tc.r.ShellReset == false {
			t.Errorf("%q replayed: status %s, want %s", res.Text, got.Status, p.Status)
		}
	}
}

func TestFence(t *testing.T) {
	if got := Fence("a ``` b"); got != "````console\na ``` b\n````" {
		t.Errorf("fence %q", got)
	}
}
