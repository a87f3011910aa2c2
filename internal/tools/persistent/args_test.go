package persistent

import (
	"encoding/json"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// Issue 16: the one-pass reading of a call's arguments (plainCommand)
// reads what tools.Decode reads, and leaves to it everything else.
func FuzzPlainCommandMatchesDecode(f *testing.F) {
	for _, seed := range []string{
		`{"command":"true"}`,
		` { "command" : "ls -la" } `,
		`{"command":"é ü"}`,
		`{"command":"a\"b"}`,
		`{"command":"x","command":"y"}`,
		`{"Command":"x"}`,
		`{"command":null}`,
		`{"command":1}`,
		`{"command":"x"} {}`,
		`{"command":"x","timeout":1}`,
		"{\"command\":\"\xff\"}",
		`{}`,
		`null`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		command, ok := plainCommand(json.RawMessage(data))
		if !ok {
			return
		}
		var args struct {
			Command *string `json:"command"`
		}
		if err := tools.Decode(json.RawMessage(data), &args); err != nil || args.Command == nil || *args.Command != command {
			t.Fatalf("%q: one pass read %q, tools.Decode %v (%v)", data, command, args.Command, err)
		}
	})
}

func TestPlainCommandShapes(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string
		ok   bool
	}{
		{`{"command":"true"}`, "true", true},
		{` {"command": "echo hi" } `, "echo hi", true},
		{`{"command":"a\nb"}`, "", false}, // an escape: decoded by tools.Decode
		{`{"command":"x","command":"y"}`, "", false},
		{`{"command":"x","other":1}`, "", false},
		{`{"Command":"x"}`, "", false},
		{`{"command":null}`, "", false},
		{`["command"]`, "", false},
	} {
		got, ok := plainCommand(json.RawMessage(tc.args))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %q %v, want %q %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}
