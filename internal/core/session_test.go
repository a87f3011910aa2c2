package core

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit"

	"github.com/shellport/shellport/internal/tools"
)

// keyTool reports the Key of the calling session and keeps the host, so a
// test can send notices the way a tool's background task does.
type keyTool struct{ host tools.Host }

func (k *keyTool) Name() string                 { return "_key" }
func (k *keyTool) Description() string          { return "reports the session key" }
func (k *keyTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (k *keyTool) Present(c *tools.Call, r *tools.Result) tools.Presentation {
	return tools.Generic("_key", c, r)
}
func (k *keyTool) Call(_ context.Context, c *tools.Call) (*tools.Result, error) {
	return &tools.Result{Text: c.Session.Key}, nil
}

// Issue 10: notices are keyed by the session object. A notice a closed
// session's task sends late (after the close, or after a new session took
// the id) is dropped; it never reaches the new session.
func TestNoticeOfClosedSessionNeverReachesNewSessionWithSameID(t *testing.T) {
	kt := &keyTool{}
	testOnlyExtraTools = func(h tools.Host) []tools.Tool { kt.host = h; return []tools.Tool{kt} }
	t.Cleanup(func() { testOnlyExtraTools = nil })
	col := &collector{msgs: map[string]string{}, got: make(chan struct{}, 100)}
	rt := New(Options{Send: col.send, SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = rt.Close() })

	keyOf := func(id string) string {
		rt.Deliver([]byte(`{"jsonrpc":"2.0","id":"k-` + id + `","method":"tools/call","params":{"session":"` + id + `","name":"_key"}}`))
		var r struct {
			Result struct{ Content []struct{ Text string } } `json:"result"`
		}
		_ = json.Unmarshal([]byte(col.wait(t, `"k-`+id+`"`)), &r)
		col.mu.Lock()
		delete(col.msgs, `"k-`+id+`"`)
		col.mu.Unlock()
		return r.Result.Content[0].Text
	}
	rt.Deliver([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","id":"n"}}`))
	col.wait(t, "1")
	old := keyOf("n")
	rt.Deliver([]byte(`{"jsonrpc":"2.0","id":2,"method":"session/close","params":{"session":"n"}}`))
	col.wait(t, "2")
	kt.host.Notice(old, "late notice of the closed session")
	rt.Deliver([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/","id":"n"}}`))
	col.wait(t, "3")
	fresh := keyOf("n")
	if fresh == old || !strings.HasPrefix(fresh, "n#") {
		t.Fatalf("the new session reuses the old key: %q and %q", old, fresh)
	}
	kt.host.Notice(old, "later notice of the closed session")
	kt.host.Notice(fresh, "the new session's own")
	rt.Deliver([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)) // a fence for the notices above
	col.wait(t, "4")
	col.mu.Lock()
	defer col.mu.Unlock()
	var texts []string
	for _, m := range col.all {
		if strings.Contains(m, `"session/notice"`) {
			texts = append(texts, m)
		}
	}
	if len(texts) != 1 || !strings.Contains(texts[0], "the new session's own") || !strings.Contains(texts[0], `"session":"n"`) {
		t.Fatalf("want only the new session's notice, got %q", texts)
	}
}
