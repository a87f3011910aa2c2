package shell

import (
	"encoding/json"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// Issue 17: the shell's card registers a terminal, so its running update
// carries the live output for that terminal; a card that registered none
// (malformed arguments) gets a running update without terminal data.
func TestPresentRunning(t *testing.T) {
	call := &tools.Call{ID: "call_7", Arguments: json.RawMessage(`{"action":{"commands":["ls","pwd"]}}`)}
	p := (&tool{}).PresentRunning(call, "a.txt\n")
	out, _ := p.Meta["terminal_output"].(map[string]any)
	if p.Title != "ls; pwd" || p.Status != "in_progress" || out["terminal_id"] != "call_7" || out["data"] != "a.txt\n" || p.Content != nil {
		t.Errorf("running update %+v", p)
	}
	bad := (&tool{}).PresentRunning(&tools.Call{ID: "x", Arguments: json.RawMessage(`{"action":7}`)}, "a")
	if bad.Meta != nil || bad.Status != "in_progress" || bad.Kind != "other" {
		t.Errorf("malformed: %+v", bad)
	}
}
