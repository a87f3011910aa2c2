package editor

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

func call(t *testing.T, args any) *tools.Call {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return &tools.Call{ID: "c", Arguments: b}
}

// Issue 5: kind read for view and edit otherwise; titles Read / List /
// Write / Edit PATH; a diff for create, str_replace and insert; a location
// with the path and the first changed line.
func TestPresent(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	p := writeFile(t, "f.txt", numbered(1, 10))
	dir := filepath.Dir(p)

	c := call(t, map[string]any{"command": "view", "path": p, "view_range": []int{3, 4}})
	pr := tl.Present(c, nil)
	if pr.Kind != "read" || pr.Title != "Read "+p || pr.Status != "" || len(pr.Locations) != 1 || pr.Locations[0] != (tools.Location{Path: p, Line: 3}) {
		t.Fatalf("view before run: %+v", pr)
	}
	pr = tl.Present(c, run(t, tl, "", map[string]any{"command": "view", "path": p, "view_range": []int{3, 4}}))
	if pr.Status != "completed" || len(pr.Content) != 1 || pr.Content[0].Type != "content" {
		t.Fatalf("view after run: %+v", pr)
	}

	c = call(t, map[string]any{"command": "view", "path": dir})
	if pr = tl.Present(c, run(t, tl, "", map[string]any{"command": "view", "path": dir})); pr.Title != "List "+dir || pr.Kind != "read" {
		t.Fatalf("directory view: %+v", pr)
	}

	args := map[string]any{"command": "str_replace", "path": p, "old_str": "line 7\n", "new_str": "line 7\nline 7b\n"}
	c = call(t, args)
	pr = tl.Present(c, nil)
	if pr.Kind != "edit" || pr.Title != "Edit "+p || len(pr.Content) != 1 || pr.Content[0].Type != "diff" ||
		*pr.Content[0].OldText != "line 7\n" || *pr.Content[0].NewText != "line 7\nline 7b\n" || pr.Content[0].Path != p {
		t.Fatalf("str_replace before run: %+v", pr)
	}
	res := run(t, tl, "", args)
	pr = tl.Present(c, res)
	if pr.Status != "completed" || pr.Locations[0] != (tools.Location{Path: p, Line: 8}) {
		t.Fatalf("str_replace after run: %+v (line should be the first changed line, 8)", pr)
	}
	// On replay the structured content has been through JSON.
	var replayed map[string]any
	b, _ := json.Marshal(res.Structured)
	_ = json.Unmarshal(b, &replayed)
	if pr2 := tl.Present(c, &tools.Result{Text: res.Text, Structured: replayed}); pr2.Locations[0].Line != 8 {
		t.Fatalf("replayed location: %+v", pr2.Locations)
	}

	c = call(t, map[string]any{"command": "insert", "path": p, "insert_line": 2, "new_str": "x"})
	pr = tl.Present(c, nil)
	if pr.Title != "Edit "+p || pr.Content[0].Type != "diff" || *pr.Content[0].OldText != "" || pr.Locations[0].Line != 3 {
		t.Fatalf("insert: %+v", pr)
	}

	np := filepath.Join(dir, "new.txt")
	c = call(t, map[string]any{"command": "create", "path": np, "file_text": "hello\n"})
	pr = tl.Present(c, nil)
	if pr.Title != "Write "+np || pr.Kind != "edit" || pr.Content[0].OldText != nil || *pr.Content[0].NewText != "hello\n" || pr.Locations[0].Line != 1 {
		t.Fatalf("create: %+v", pr)
	}

	// A failed edit shows the error, not a diff that did not happen.
	bad := map[string]any{"command": "str_replace", "path": p, "old_str": "absent", "new_str": "x"}
	pr = tl.Present(call(t, bad), run(t, tl, "", bad))
	if pr.Status != "failed" || pr.Content[0].Type != "content" {
		t.Fatalf("failed edit: %+v", pr)
	}
}

// Present never panics on malformed arguments: it falls back to the
// generic card.
func TestPresentMalformed(t *testing.T) {
	t.Parallel()
	tl := newTool(t, 0)
	for _, raw := range []string{``, `null`, `{`, `[]`, `{"command":"view"}`, `{"command":"fly","path":"/x"}`, `{"command":"view","path":7}`} {
		pr := tl.Present(&tools.Call{Arguments: json.RawMessage(raw)}, nil)
		if pr.Kind != "other" || pr.Title != Name {
			t.Fatalf("%s: %+v", raw, pr)
		}
	}
	if pr := tl.Present(nil, &tools.Result{Text: "x", IsError: true}); pr.Status != "failed" {
		t.Fatalf("nil call: %+v", pr)
	}
}
