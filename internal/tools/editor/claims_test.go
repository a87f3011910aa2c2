package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/TOOLS.md, issue 18: "structuredContent: path, line,
// lastLine, inPlace for edits; firstLine, lastLine, totalLines, truncated
// for a file view; entries, hidden, truncated, firstEntry, lastEntry for a
// directory" (issue 18: the keys had no test).
func TestStructuredContentKeys(t *testing.T) {
	tl := newTool(t, 0)
	p := writeFile(t, "f.txt", "one\ntwo\nthree\nfour\n")
	view := run(t, tl, "", map[string]any{"command": "view", "path": p, "view_range": []int{2, 3}})
	wantMeta(t, "file view", view.Structured, map[string]any{"firstLine": 2, "lastLine": 3, "totalLines": 4, "truncated": false})

	edit := run(t, tl, "", replaceArgs(p, "three", "3\n3b"))
	wantMeta(t, "edit", edit.Structured, map[string]any{"path": p, "line": 3, "lastLine": 4, "inPlace": false})

	dir := t.TempDir()
	for _, name := range []string{"a", "b", ".hidden"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := run(t, tl, "", map[string]any{"command": "view", "path": dir})
	wantMeta(t, "directory view", list.Structured, map[string]any{"entries": 2, "hidden": 1, "truncated": false, "firstEntry": 1, "lastEntry": 2})
}

// docs/TOOLS.md, issue 18: maxOutputChars is at least 1000
// (a smaller value is refused by the config, see TestParseConfigValidation);
// at exactly 1000 a long view is cut on whole lines within the bound.
func TestMinimumOutputLimit(t *testing.T) {
	tl := newTool(t, 1000)
	var b strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "line %d of a long file\n", i)
	}
	p := writeFile(t, "long.txt", b.String())
	res := run(t, tl, "", map[string]any{"command": "view", "path": p})
	if res.IsError || res.Structured["truncated"] != true {
		t.Fatalf("view at the minimum limit: %v %v", res.IsError, res.Structured)
	}
	body, _, _ := strings.Cut(res.Text, "\n[")
	if len(body) > 1000 {
		t.Fatalf("%d characters of file shown, over the limit of 1000", len(body))
	}
}

func wantMeta(t *testing.T, what string, got map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("%s: %s = %v, want %v (all: %v)", what, k, got[k], v, got)
		}
	}
}
