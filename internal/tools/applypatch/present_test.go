package applypatch

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

func presentOf(tl tools.Tool, cwd, args string, res *tools.Result) tools.Presentation {
	return tl.Present(&tools.Call{ID: "c", Session: tools.Session{Cwd: cwd}, Arguments: json.RawMessage(args)}, res)
}

func TestPresentEnvelope(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"src/app.py": "a\nb\nc\n", "old.txt": "o\n"})
	tl := New(tools.Host{}, Config{})
	args := patchArgs(t, "*** Begin Patch\n*** Add File: new.md\n+hi\n*** Update File: src/app.py\n@@\n a\n-b\n+B\n c\n*** Delete File: old.txt\n*** End Patch\n")
	pending := presentOf(tl, dir, args, nil)
	oldSide, newSide := "a\nb\nc\n", "a\nB\nc\n"
	want := tools.Presentation{
		Title: "Patch 3 files", Kind: "edit", RawInput: json.RawMessage(args),
		Content: []tools.ContentBlock{
			tools.DiffBlock(dir+"/new.md", nil, "hi\n"),
			tools.DiffBlock(dir+"/src/app.py", &oldSide, newSide),
		},
		Locations: []tools.Location{{Path: dir + "/new.md", Line: 1}, {Path: dir + "/src/app.py"}, {Path: dir + "/old.txt"}},
	}
	if !reflect.DeepEqual(pending, want) {
		t.Fatalf("pending card\n got %+v\nwant %+v", pending, want)
	}
	res := call(t, tl, session(dir), args)
	done := presentOf(tl, dir, args, res)
	want.Status = "completed"
	want.Locations[1].Line = 2
	if !reflect.DeepEqual(done, want) {
		t.Fatalf("final card\n got %+v\nwant %+v", done, want)
	}
	// Replay: the structured content after a JSON round trip gives the
	// same card.
	raw, _ := json.Marshal(res.Structured)
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if replay := presentOf(tl, dir, args, &tools.Result{Text: res.Text, Structured: back}); !reflect.DeepEqual(replay, want) {
		t.Fatalf("replayed card\n got %+v\nwant %+v", replay, want)
	}
}

func TestPresentTitlesAndKinds(t *testing.T) {
	t.Parallel()
	env, op := New(tools.Host{}, Config{}), NewOpenAI(tools.Host{}, Config{})
	for _, tc := range []struct {
		tl          tools.Tool
		args        string
		title, kind string
		blocks      int
	}{
		{env, patchArgs(t, "*** Begin Patch\n*** Add File: a.md\n+x\n*** End Patch\n"), "Write a.md", "edit", 1},
		{env, patchArgs(t, "*** Begin Patch\n*** Delete File: a.md\n*** End Patch\n"), "Delete a.md", "delete", 0},
		{env, patchArgs(t, "*** Begin Patch\n*** Delete File: a\n*** Delete File: b\n*** End Patch\n"), "Patch 2 files", "delete", 0},
		{env, patchArgs(t, "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch\n"), "Move a to b", "move", 0},
		{env, patchArgs(t, "*** Begin Patch\n*** Update File: a\n*** Move to: b\n-x\n+y\n*** End Patch\n"), "Edit a and move it to b", "edit", 1},
		{env, patchArgs(t, "*** Begin Patch\n*** Update File: a\n-x\n"), "Apply patch", "edit", 0},
		{op, opArgs(t, "create_file", "n.txt", str("+x\n")), "Write n.txt", "edit", 1},
		{op, opArgs(t, "update_file", "n.txt", str("-x\n+y\n")), "Edit n.txt", "edit", 1},
		{op, opArgs(t, "delete_file", "n.txt", nil), "Delete n.txt", "delete", 0},
	} {
		pr := presentOf(tc.tl, "/repo", tc.args, nil)
		if pr.Title != tc.title || pr.Kind != tc.kind || len(pr.Content) != tc.blocks || string(pr.RawInput.(json.RawMessage)) != tc.args {
			t.Errorf("%s: %+v", tc.args, pr)
		}
	}
	// Unreadable arguments fall back to the generic card.
	if pr := presentOf(env, "/repo", `{"patch": `, nil); pr.Title != "apply_patch" || pr.Kind != "other" {
		t.Errorf("generic card: %+v", pr)
	}
}

// A failed call shows its message instead of the diffs.
func TestPresentFailure(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"a.txt": "a\n"})
	tl := NewOpenAI(tools.Host{}, Config{})
	args := opArgs(t, "update_file", "a.txt", str("-zzz\n+y\n"))
	res := call(t, tl, session(dir), args)
	pr := presentOf(tl, dir, args, res)
	if pr.Status != "failed" || len(pr.Content) != 1 || pr.Content[0].Type != "content" || pr.Content[0].Content.Text != res.Text {
		t.Fatalf("%+v", pr)
	}
}
