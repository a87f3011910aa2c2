package editor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// newTool returns an editor with the given output limit (0 for the default).
func newTool(t *testing.T, maxOut int) tools.Tool {
	t.Helper()
	return New(tools.Host{}, Config{MaxOutputChars: maxOut})
}

// run calls the tool with args (a map or a JSON string) in a session whose
// cwd is cwd, failing the test on a Go error.
func run(t *testing.T, tl tools.Tool, cwd string, args any) *tools.Result {
	t.Helper()
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	res, err := tl.Call(context.Background(), &tools.Call{ID: "c1", Session: tools.Session{ID: "s1", Key: "s1", Cwd: cwd}, Arguments: raw})
	if err != nil {
		t.Fatalf("Call(%s): Go error %v", raw, err)
	}
	if res == nil {
		t.Fatalf("Call(%s): nil result", raw)
	}
	return res
}

// ok runs a call that must succeed and returns its text.
func ok(t *testing.T, tl tools.Tool, args map[string]any) string {
	t.Helper()
	res := run(t, tl, "", args)
	if res.IsError {
		t.Fatalf("call %v failed: %s", args, res.Text)
	}
	return res.Text
}

// fails runs a call that must fail and returns its message.
func fails(t *testing.T, tl tools.Tool, args map[string]any) string {
	t.Helper()
	res := run(t, tl, "", args)
	if !res.IsError {
		t.Fatalf("call %v succeeded, want an error; text:\n%s", args, res.Text)
	}
	return res.Text
}

// writeFile creates a file with exact content in a fresh temp dir and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readFile returns a file's exact content.
func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantFile fails unless the file holds exactly want.
func wantFile(t *testing.T, p, want string) {
	t.Helper()
	if got := readFile(t, p); got != want {
		t.Fatalf("%s holds\n%q\nwant\n%q", p, got, want)
	}
}

// contains fails unless s contains every part.
func contains(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Fatalf("text lacks %q:\n%s", p, s)
		}
	}
}

// lacks fails if s contains any part.
func lacks(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(s, p) {
			t.Fatalf("text has %q but should not:\n%s", p, s)
		}
	}
}

// noDebris fails if a temporary file of the editor is left in dir.
func noDebris(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".shellport-") {
			t.Fatalf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func toolsHost() tools.Host { return tools.Host{} }

func toolsConfig(maxOut int) Config { return Config{MaxOutputChars: maxOut} }
