package tools_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// FuzzDecodeArgs drives the one door of every tool's arguments with the
// bash tool's real argument types (issue 10): it never panics, every
// refusal reads as a model-facing "invalid arguments" message, and what it
// accepts encoding/json decodes to the same value.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		`{"command":"echo ok","Command":"echo SMUGGLED"}`,
		`{"command":"echo ok","command":"echo SMUGGLED"}`,
		`{"command":"ls","description":"list","timeoutMs":1500.5,"workdir":"sub","run_in_background":true}`,
		`{"command":"\ud800"}`, "{\"command\":\"\xc3\x28\"}", `{"task_id":"bash-1"}`,
		`{"TASK_ID":"bash-1"}`, ``, `null`, `[]`, `{"command":1}`, `{"command":"a"} {}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p bash.Params
		err := tools.Decode(data, &p)
		var tp bash.TaskParams
		err2 := tools.Decode(data, &tp)
		for _, e := range []error{err, err2} {
			if e != nil && !strings.HasPrefix(e.Error(), "invalid arguments: ") {
				t.Fatalf("refusal not worded for the model: %v", e)
			}
		}
		if err != nil || len(strings.TrimSpace(string(data))) == 0 || strings.TrimSpace(string(data)) == "null" {
			return
		}
		var q bash.Params
		if jerr := json.Unmarshal(data, &q); jerr != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("accepted %q, but encoding/json reads %+v (%v), not %+v", data, q, jerr, p)
		}
	})
}
