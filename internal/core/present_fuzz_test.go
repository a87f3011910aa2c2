package core_test

import (
	"encoding/json"
	"testing"

	"github.com/shellport/shellport/internal/testkit/rpcclient"
	"github.com/shellport/shellport/internal/testkit/transcript"
)

// FuzzToolsPresent: tools/present draws a card at every stage for any
// arguments and any logged result, never an error and never a panic
// (issue 17: malformed or older shapes fall back to a generic card), in
// both bash profiles and for every tool the profile mounts.
func FuzzToolsPresent(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"command":"ls","workdir":"sub","description":"List"}`, `{"content":[{"type":"text","text":"a\n\n[exit code: 1]"}],"isError":false,"structuredContent":{"exitCode":1}}`},
		{`{"command":42}`, `"text"`},
		{`{"command":"x","run_in_background":true}`, `{"content":7,"_meta":{"presentation":{"rawOutput":{"output":3}}}}`},
		{`[1,2]`, `null`},
		{`{"task_id":"bash-1"}`, `{"structuredContent":{"exitCode":1e300,"signal":5,"timedOut":"yes"}}`},
		{`{"command":"view","path":"/etc/hostname","view_range":[2,1]}`, `{"content":[{"type":"text","text":"` + "```" + `"}],"isError":true}`},
	} {
		f.Add(seed[0], seed[1])
	}
	carriers := map[string]transcript.Carrier{"oneshot": openCoreFor(f), "persistent": openCoreFor(f)}
	initialized := map[string]bool{}
	client := func(t *testing.T, profile string) *rpcclient.Client {
		c := rpcclient.New(t, carriers[profile])
		if !initialized[profile] {
			if r := c.Call("initialize", map[string]any{"config": map[string]any{"profile": profile}}); r.Error != nil {
				t.Fatal(r.Message())
			}
			initialized[profile] = true
		}
		return c
	}
	f.Fuzz(func(t *testing.T, args, result string) {
		if !json.Valid([]byte(args)) || !json.Valid([]byte(result)) {
			return // the request itself would not be JSON
		}
		for _, profile := range []string{"oneshot", "persistent"} {
			c := client(t, profile)
			for _, name := range []string{"bash", "bash_output", "bash_kill", "str_replace_editor"} {
				r := c.Call("tools/present", map[string]any{"name": name, "callId": "c", "cwd": "/tmp", "arguments": json.RawMessage(args), "result": json.RawMessage(result), "output": "x"})
				if r.Error != nil {
					t.Fatalf("%s %s: %s", profile, name, r.Message())
				}
				var s struct {
					Call      struct{ Title, Kind string }
					Running   struct{ Status string }
					Completed *struct{ Status string }
				}
				if err := json.Unmarshal(r.Result, &s); err != nil || s.Call.Title == "" || s.Call.Kind == "" || s.Running.Status != "in_progress" {
					t.Fatalf("%s %s: %s", profile, name, r.Raw)
				}
				if string(result) != "null" && (s.Completed == nil || s.Completed.Status == "") {
					t.Fatalf("%s %s: no completed card: %s", profile, name, r.Raw)
				}
			}
		}
	})
}
