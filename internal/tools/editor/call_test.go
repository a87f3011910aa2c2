package editor

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// Issue 5: the schema is {command, path, file_text?, view_range?, old_str?,
// new_str?, insert_line?}, closed, with command an enum.
func TestSchema(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	if tl.Name() != "str_replace_editor" {
		t.Fatalf("name %q", tl.Name())
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(tl.InputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	if s.Type != "object" || s.Additional == nil || *s.Additional ||
		!slices.Equal(names, []string{"command", "file_text", "insert_line", "new_str", "old_str", "path", "view_range"}) ||
		!slices.Equal(s.Required, []string{"command", "path"}) {
		t.Fatalf("schema: %+v", s)
	}
	var cmd struct {
		Enum []string `json:"enum"`
	}
	_ = json.Unmarshal(s.Properties["command"], &cmd)
	if !slices.Equal(cmd.Enum, []string{"view", "create", "str_replace", "insert"}) {
		t.Fatalf("command enum %v", cmd.Enum)
	}
}

// The description is the editor's own; the runtime applies a configured
// one (internal/core's TestConfiguredNamesAndDescriptions).
func TestDefaultDescription(t *testing.T) {
	t.Parallel()
	if d := New(tools.Host{}, Config{}).Description(); d != DefaultDescription {
		t.Fatal("default description not used")
	}
}

// Issue 5: the public schema and every message say old_str — no other
// spelling. This scans every string literal of the package.
func TestOnlyOldStrSpelling(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				l := strings.ToLower(lit.Value)
				for _, bad := range []string{"old_string", "oldstring", "old_text", "old string", "new_string"} {
					if strings.Contains(l, bad) {
						t.Errorf("%s: literal %s spells %q", fset.Position(lit.Pos()), lit.Value, bad)
					}
				}
			}
			return true
		})
	}
	for _, text := range []string{DefaultDescription, inputSchema} {
		if !strings.Contains(text, "old_str") {
			t.Fatal("old_str missing")
		}
	}
}

// Malformed calls are isError results that say what to fix, never Go
// errors, and cause no I/O.
func TestBadArguments(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "f.txt", "a\n")
	cases := []struct {
		args any
		want string
	}{
		{`{"command":"view"`, "invalid arguments"},
		{`[1]`, "expected an object"},
		{`{}`, "command is required"},
		{`{"command":"view","path":"` + p + `","bogus":1}`, `unknown argument "bogus"`},
		{`{"command":"insert","path":"` + p + `","insert_line":0,"insert_text":"x"}`, "this tool calls it new_str"},
		{`{"command":"view","path":"` + p + `","view_range":"1-2"}`, `"view_range" must be an array`},
		{`{"command":"insert","path":"` + p + `","insert_line":"3","new_str":"x"}`, `"insert_line" must be a number`},
		{map[string]any{"command": "delete", "path": p}, "unknown command \"delete\""},
		{map[string]any{"command": "undo_edit", "path": p}, "undo_edit is not supported"},
		{map[string]any{"command": "create", "path": p + ".new", "new_str": "x"}, "create does not take new_str"},
		{map[string]any{"command": "view", "path": p, "old_str": "a"}, "view does not take old_str"},
		{map[string]any{"command": "create", "path": p + ".new", "file_text": "a\x00b"}, "file_text contains a NUL byte"},
		{map[string]any{"command": "str_replace", "path": p, "old_str": "a", "new_str": "\x00"}, "new_str contains a NUL byte"},
	}
	for _, c := range cases {
		res := run(t, tl, "", c.args)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%v: got %+v, want an error containing %q", c.args, res, c.want)
		}
	}
	// Empty strings and null for unused arguments are fine.
	ok(t, tl, map[string]any{"command": "view", "path": p, "old_str": "", "insert_line": nil, "view_range": nil})
	if _, err := os.Stat(p + ".new"); err == nil {
		t.Fatal("a refused create wrote a file")
	}
}

// Issue 5: paths must be absolute; a relative one is refused with the
// session-cwd-joined path as a hint when that exists; no ~ expansion; NUL
// bytes and over-long paths refused.
func TestPaths(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	cwd := t.TempDir()
	mkTree(t, cwd, "src/main.go")

	res := run(t, tl, cwd, map[string]any{"command": "view", "path": "src/main.go"})
	if !res.IsError {
		t.Fatal("relative path accepted")
	}
	contains(t, res.Text, `path "src/main.go" is not absolute`, "Did you mean "+filepath.Join(cwd, "src/main.go")+"?")

	res = run(t, tl, cwd, map[string]any{"command": "create", "path": "new.go", "file_text": "x"})
	contains(t, res.Text, "To create it in the session directory, use "+filepath.Join(cwd, "new.go"))
	res = run(t, tl, cwd, map[string]any{"command": "view", "path": "nope.go"})
	contains(t, res.Text, "does not exist either")
	res = run(t, tl, "", map[string]any{"command": "view", "path": "nope.go"})
	contains(t, res.Text, "is not absolute")
	lacks(t, res.Text, "Did you mean")

	contains(t, run(t, tl, cwd, map[string]any{"command": "view", "path": "~/x"}).Text, "starts with ~, which is not expanded")
	contains(t, run(t, tl, cwd, map[string]any{"command": "view", "path": "/tmp/a\x00b"}).Text, "NUL byte")
	contains(t, run(t, tl, cwd, map[string]any{"command": "view", "path": "/" + strings.Repeat("a/", 2100)}).Text, "path is too long")
	contains(t, run(t, tl, cwd, map[string]any{"command": "view", "path": "/tmp/" + strings.Repeat("n", 300)}).Text, "path component", "is too long (300 bytes")
	contains(t, run(t, tl, cwd, map[string]any{"command": "view", "path": ""}).Text, "path is required")

	// Unclean absolute paths are cleaned.
	got := ok(t, tl, map[string]any{"command": "view", "path": cwd + "/./src/../src/main.go"})
	contains(t, got, "     1\tx")
}

// A cancelled call returns the context's error (the runtime reports it)
// and changes nothing.
func TestCancelled(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "f.txt", "a\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw, _ := json.Marshal(replaceArgs(p, "a", "b"))
	res, err := newTool(t, 0).Call(ctx, &tools.Call{Arguments: raw})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled call: %v, %+v", err, res)
	}
	wantFile(t, p, "a\n")
}

func TestEmptyViewRangeIsUnset(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "f.txt", "a\n")
	if got := ok(t, newTool(t, 0), map[string]any{"command": "view", "path": p, "view_range": []int{}}); got != "     1\ta" {
		t.Fatalf("view = %q", got)
	}
}
