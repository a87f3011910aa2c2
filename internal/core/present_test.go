package core_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit/rpcclient"
)

type presentation struct {
	Title     string           `json:"title"`
	Kind      string           `json:"kind"`
	Status    string           `json:"status"`
	Content   []map[string]any `json:"content"`
	RawInput  any              `json:"rawInput"`
	RawOutput map[string]any   `json:"rawOutput"`
	Meta      map[string]any   `json:"_meta"`
}

type stages struct {
	Call      presentation  `json:"call"`
	Running   presentation  `json:"running"`
	Completed *presentation `json:"completed"`
}

func presentOf(t *testing.T, c *rpcclient.Client, params map[string]any) stages {
	t.Helper()
	r := c.Call("tools/present", params)
	if r.Error != nil {
		t.Fatalf("tools/present: %s", r.Message())
	}
	var s stages
	if err := json.Unmarshal(r.Result, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Issue 17: a call's card at every stage, drawn without running anything,
// by the same functions the results use.
func TestToolsPresentStages(t *testing.T) {
	for _, profile := range []string{"oneshot", "persistent"} {
		t.Run(profile, func(t *testing.T) {
			c := rpcclient.New(t, openCore(t))
			if r := c.Call("initialize", map[string]any{"config": map[string]any{"profile": profile}}); r.Error != nil {
				t.Fatal(r.Message())
			}
			cwd := t.TempDir()
			if err := os.Mkdir(filepath.Join(cwd, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if r := c.Call("session/new", map[string]any{"cwd": cwd, "id": "p"}); r.Error != nil {
				t.Fatal(r.Message())
			}
			args := map[string]any{"command": "pwd; printf 'done\\n\\n\\n'"}
			wantCwd := cwd
			if profile == "oneshot" {
				args["description"] = "Show where it runs"
				args["workdir"] = "sub" // relative: resolved against the session's cwd
				wantCwd = filepath.Join(cwd, "sub")
			}

			// Before the call: the card, nothing run.
			s := presentOf(t, c, map[string]any{"name": "bash", "arguments": args, "callId": "toolu_1", "session": "p", "output": "partial\n"})
			info, _ := s.Call.Meta["terminal_info"].(map[string]any)
			if s.Call.Title != args["command"] || s.Call.Kind != "execute" || s.Call.Status != "" || info["terminal_id"] != "toolu_1" || info["cwd"] != wantCwd {
				t.Errorf("call card %+v", s.Call)
			}
			if profile == "oneshot" && (len(s.Call.Content) != 1 || !strings.Contains(mustJSON(t, s.Call.Content[0]), "Show where it runs")) {
				t.Errorf("description block %v", s.Call.Content)
			}
			out, _ := s.Running.Meta["terminal_output"].(map[string]any)
			if s.Running.Status != "in_progress" || out["terminal_id"] != "toolu_1" || out["data"] != "partial\n" || s.Running.Content != nil {
				t.Errorf("running update %+v", s.Running)
			}
			if s.Completed != nil {
				t.Errorf("a completed card without a result: %+v", s.Completed)
			}

			// The call itself: its result's presentation is the completed
			// card tools/present draws from the logged call and result.
			r := c.Call("tools/call", map[string]any{"session": "p", "name": "bash", "arguments": args, "callId": "toolu_1"})
			if r.Error != nil {
				t.Fatal(r.Message())
			}
			var logged struct {
				Meta struct {
					Presentation presentation `json:"presentation"`
				} `json:"_meta"`
			}
			if err := json.Unmarshal(r.Result, &logged); err != nil {
				t.Fatal(err)
			}
			live := logged.Meta.Presentation
			replay := presentOf(t, c, map[string]any{"name": "bash", "arguments": args, "callId": "toolu_1", "cwd": cwd, "result": json.RawMessage(r.Result)})
			if replay.Completed == nil || !reflect.DeepEqual(*replay.Completed, live) {
				t.Errorf("replayed completed card\n%+v\nthe call's\n%+v", replay.Completed, live)
			}
			if !reflect.DeepEqual(replay.Call, s.Call) {
				t.Errorf("replayed call card %+v, before the call %+v", replay.Call, s.Call)
			}
			fenced := mustJSON(t, live.Content[len(live.Content)-1])
			if !strings.Contains(fenced, `done\n`+"```") {
				t.Errorf("the fence keeps trailing blank lines: %s", fenced)
			}
			if raw, _ := live.RawOutput["output"].(string); raw != wantCwd+"\ndone\n\n\n" {
				t.Errorf("rawOutput.output %q lost the raw text", raw)
			}
		})
	}
}

// Malformed or older argument shapes, and tools this runtime does not
// mount, get a generic card at every stage; nothing raises.
func TestToolsPresentMalformed(t *testing.T) {
	c := rpcclient.New(t, openCore(t))
	if r := c.Call("initialize", map[string]any{}); r.Error != nil {
		t.Fatal(r.Message())
	}
	for _, tc := range []map[string]any{
		{"name": "bash", "arguments": map[string]any{"command": 42}},
		{"name": "bash", "arguments": map[string]any{"cmd": "ls"}},
		{"name": "bash", "arguments": "not an object"},
		{"name": "bash", "arguments": map[string]any{"command": "ls"}, "result": "a bare string"},
		{"name": "bash", "arguments": map[string]any{"command": "ls"}, "result": map[string]any{"content": 7}},
		{"name": "no_such_tool", "arguments": map[string]any{"x": 1}, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "hi"}}}},
	} {
		s := presentOf(t, c, tc)
		if s.Call.Title == "" || s.Call.Kind == "" || s.Running.Status != "in_progress" {
			t.Errorf("%v: %+v", tc, s)
		}
		if _, ok := tc["result"]; ok && (s.Completed == nil || s.Completed.Status == "") {
			t.Errorf("%v: completed %+v", tc, s.Completed)
		}
	}
	if r := c.Call("tools/present", map[string]any{"arguments": map[string]any{}}); r.Error == nil {
		t.Error("tools/present without a name was answered")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
