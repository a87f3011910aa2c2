package editor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

func newAnthropic(t *testing.T, cfg AnthropicConfig) tools.Tool {
	t.Helper()
	if cfg.Type == "" {
		cfg.Type = AnthropicType
	}
	if cfg.MaxOutputChars == 0 {
		cfg.MaxOutputChars = DefaultMaxOutputChars
	}
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	return NewAnthropic(tools.Host{}, cfg)
}

// runIn calls tl in session key.
func runIn(t *testing.T, tl tools.Tool, key string, args any) *tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Call(context.Background(), &tools.Call{ID: "c", Session: tools.Session{ID: key, Key: key}, Arguments: raw})
	if err != nil || res == nil {
		t.Fatalf("Call(%s): %v", raw, err)
	}
	return res
}

// Issue 13: Claude models send insert's text as insert_text; the older
// documentation says new_str. Both work, keeping tabs and CRLF; both at
// once must agree.
func TestAnthropicInsertText(t *testing.T) {
	tl := newAnthropic(t, AnthropicConfig{})
	p := writeFile(t, "a.go", "func f() {\r\n\treturn\r\n}\r\n")
	ok(t, tl, map[string]any{"command": "insert", "path": p, "insert_line": 1, "insert_text": "\tx := 1\n"})
	wantFile(t, p, "func f() {\r\n\tx := 1\r\n\treturn\r\n}\r\n")
	ok(t, tl, map[string]any{"command": "insert", "path": p, "insert_line": 0, "new_str": "// top\n"})
	wantFile(t, p, "// top\r\nfunc f() {\r\n\tx := 1\r\n\treturn\r\n}\r\n")
	ok(t, tl, map[string]any{"command": "insert", "path": p, "insert_line": 5, "insert_text": "// end", "new_str": "// end"})
	msg := fails(t, tl, map[string]any{"command": "insert", "path": p, "insert_line": 0, "insert_text": "a", "new_str": "b"})
	contains(t, msg, "insert_text and new_str are both given and differ")
	msg = fails(t, tl, map[string]any{"command": "insert", "path": p, "insert_line": 0, "insert_text": "a", "Insert_text": "a"})
	contains(t, msg, `unknown argument "Insert_text"`)
	// An argument given twice is refused here as everywhere.
	res := run(t, tl, "", fmt.Sprintf(`{"command":"insert","path":%q,"insert_line":0,"insert_text":"a","insert_text":"b"}`, p))
	if !res.IsError || !strings.Contains(res.Text, "more than once") {
		t.Fatalf("duplicate insert_text: %+v", res)
	}
	wantFile(t, p, "// top\r\nfunc f() {\r\n\tx := 1\r\n\treturn\r\n}\r\n// end\r\n")
}

// numberedLines is lines as a view shows them.
func numberedLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Issue 13: max_characters cuts a file view near N characters, on whole
// lines, and the note names the range that continues it.
func TestAnthropicMaxCharacters(t *testing.T) {
	lines := []string{"alpha", "\tbeta", "gamma δ", "delta"}
	p := writeFile(t, "f.txt", strings.Join(lines, "\n")+"\n")
	whole := numberedLines(lines)
	n := len([]rune(whole))

	// Exactly the view's length: the whole file, no note.
	if got := ok(t, newAnthropic(t, AnthropicConfig{MaxCharacters: n}), map[string]any{"command": "view", "path": p}); got != whole {
		t.Fatalf("max_characters %d:\n%q\nwant\n%q", n, got, whole)
	}
	// One less: the last line goes, and the note names it.
	got := ok(t, newAnthropic(t, AnthropicConfig{MaxCharacters: n - 1}), map[string]any{"command": "view", "path": p})
	if !strings.HasPrefix(got, numberedLines(lines[:3])+"\n") {
		t.Fatalf("max_characters %d:\n%s", n-1, got)
	}
	contains(t, got, "showing lines 1-3 of 4", "view_range [4, 4]")
	// A budget smaller than a line shows the start of the first line.
	got = ok(t, newAnthropic(t, AnthropicConfig{MaxCharacters: 10}), map[string]any{"command": "view", "path": p})
	contains(t, got, "     1\talp\n", "[line 1 has 5 characters; only the first 3 are shown", "view_range [2, ")
	got = ok(t, newAnthropic(t, AnthropicConfig{MaxCharacters: 1}), map[string]any{"command": "view", "path": p})
	contains(t, got, "     1\t\n", "only the first 0 are shown")
	// view_range pages within the same budget.
	got = ok(t, newAnthropic(t, AnthropicConfig{MaxCharacters: 30}), map[string]any{"command": "view", "path": p, "view_range": []int{2, -1}})
	if !strings.HasPrefix(got, numberedLines(lines)[len(numberedLines(lines[:1]))+1:len(numberedLines(lines[:3]))]+"\n") {
		t.Fatalf("view_range with max_characters:\n%s", got)
	}
	// Edits are not cut by max_characters (the editor's maxOutputChars
	// bounds them), and neither are directory listings.
	tl := newAnthropic(t, AnthropicConfig{MaxCharacters: 1})
	contains(t, ok(t, tl, map[string]any{"command": "str_replace", "path": p, "old_str": "delta", "new_str": "DELTA"}), "     4\tDELTA")
	contains(t, ok(t, tl, map[string]any{"command": "view", "path": filepath.Dir(p)}), "f.txt")
}

// Issue 13: undo_edit (text_editor_20250124) reverts the session's last
// edit of a file, byte for byte, one step per call.
func TestAnthropicUndo(t *testing.T) {
	tl := newAnthropic(t, AnthropicConfig{Type: AnthropicTypeV1})
	if tl.Name() != Name {
		t.Fatalf("name %q, want %q", tl.Name(), Name)
	}
	orig := "\ufeffa\r\n\tb\r\nc" // BOM, CRLF, tab, no final newline
	p := writeFile(t, "u.txt", orig)
	undo := map[string]any{"command": "undo_edit", "path": p}

	contains(t, fails(t, tl, undo), "there is no edit of "+p+" to undo")
	ok(t, tl, map[string]any{"command": "str_replace", "path": p, "old_str": "\tb", "new_str": "\tB"})
	afterReplace := readFile(t, p)
	ok(t, tl, map[string]any{"command": "insert", "path": p, "insert_line": 0, "new_str": "top\n"})
	fails(t, tl, map[string]any{"command": "str_replace", "path": p, "old_str": "missing", "new_str": "x"}) // not an edit

	text := ok(t, tl, undo)
	contains(t, text, "Undid the last edit of "+p, "1 earlier edit of it can still be undone")
	wantFile(t, p, afterReplace)
	contains(t, ok(t, tl, undo), "Undid the last edit of "+p)
	wantFile(t, p, orig)
	contains(t, fails(t, tl, undo), "there is no edit of "+p+" to undo")
	wantFile(t, p, orig)

	// Undoing a create removes the file; directories made for it stay.
	dir := filepath.Join(t.TempDir(), "new", "dir")
	created := filepath.Join(dir, "x.py")
	ok(t, tl, map[string]any{"command": "create", "path": created, "file_text": "x = 1\n"})
	contains(t, ok(t, tl, map[string]any{"command": "undo_edit", "path": created}), "Undid the creation of "+created)
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Fatalf("created file still there: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("directory made for the file: %v", err)
	}
	contains(t, fails(t, tl, map[string]any{"command": "undo_edit", "path": created}), "no edit of "+created)
	noDebris(t, filepath.Dir(p))
}

// An undo never overwrites a change it did not make: a file changed since
// its last edit (by a command, another program) is left as it is.
func TestAnthropicUndoRefusesAChangedFile(t *testing.T) {
	tl := newAnthropic(t, AnthropicConfig{Type: AnthropicTypeV1})
	p := writeFile(t, "c.txt", "one\n")
	ok(t, tl, map[string]any{"command": "str_replace", "path": p, "old_str": "one", "new_str": "two"})
	if err := os.WriteFile(p, []byte("two\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	contains(t, fails(t, tl, map[string]any{"command": "undo_edit", "path": p}), "was changed after its last edit", "nothing was undone")
	wantFile(t, p, "two\nthree\n")

	created := filepath.Join(t.TempDir(), "made.txt")
	ok(t, tl, map[string]any{"command": "create", "path": created, "file_text": "x\n"})
	if err := os.WriteFile(created, []byte("y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	contains(t, fails(t, tl, map[string]any{"command": "undo_edit", "path": created}), "nothing was undone")
	wantFile(t, created, "y\n")
}

// Sessions are tenants: one session cannot undo another's edit, and a
// closed session's history is gone.
func TestAnthropicUndoPerSession(t *testing.T) {
	tl := newAnthropic(t, AnthropicConfig{Type: AnthropicTypeV1})
	p := writeFile(t, "s.txt", "a\n")
	if res := runIn(t, tl, "A", map[string]any{"command": "str_replace", "path": p, "old_str": "a", "new_str": "b"}); res.IsError {
		t.Fatal(res.Text)
	}
	if res := runIn(t, tl, "B", map[string]any{"command": "undo_edit", "path": p}); !res.IsError {
		t.Fatalf("session B undid A's edit: %s", res.Text)
	}
	wantFile(t, p, "b\n")
	tl.(tools.SessionCloser).CloseSession("A")
	if res := runIn(t, tl, "A", map[string]any{"command": "undo_edit", "path": p}); !res.IsError {
		t.Fatalf("undo after the session closed: %s", res.Text)
	}
}

// The history keeps the last maxUndoSteps edits of a file, and edits made
// through a symbolic link share the file's history.
func TestAnthropicUndoDepthAndLinks(t *testing.T) {
	tl := newAnthropic(t, AnthropicConfig{Type: AnthropicTypeV1})
	p := writeFile(t, "d.txt", "0\n")
	link := filepath.Join(t.TempDir(), "link.txt")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= maxUndoSteps+1; i++ {
		path := p
		if i%2 == 0 {
			path = link
		}
		ok(t, tl, map[string]any{"command": "str_replace", "path": path, "old_str": fmt.Sprint(i - 1), "new_str": fmt.Sprint(i)})
	}
	for i := maxUndoSteps; i >= 1; i-- {
		path := link
		if i%2 == 0 {
			path = p
		}
		ok(t, tl, map[string]any{"command": "undo_edit", "path": path})
		wantFile(t, p, fmt.Sprintf("%d\n", i))
	}
	contains(t, fails(t, tl, map[string]any{"command": "undo_edit", "path": p}), "no edit of", "the last 10 of each file")
	wantFile(t, p, "1\n")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
}

// undo_edit takes a path only, and exists only in the older version.
func TestAnthropicUndoArguments(t *testing.T) {
	p := writeFile(t, "x.txt", "x\n")
	v1 := newAnthropic(t, AnthropicConfig{Type: AnthropicTypeV1})
	contains(t, fails(t, v1, map[string]any{"command": "undo_edit", "path": p, "old_str": "x"}), "undo_edit does not take old_str")
	contains(t, fails(t, v1, map[string]any{"command": "undo_edit", "path": "x.txt"}), "is not absolute")
	contains(t, fails(t, v1, map[string]any{"command": "undo_edit"}), "path is required")
	cur := newAnthropic(t, AnthropicConfig{})
	contains(t, fails(t, cur, map[string]any{"command": "undo_edit", "path": p}), "undo_edit is not supported")
}

func TestAnthropicConfigCheck(t *testing.T) {
	for _, c := range []struct {
		cfg  AnthropicConfig
		want string // error; "" for none
		name string // the name Check sets
	}{
		{AnthropicConfig{Type: AnthropicType}, "", NameAnthropic},
		{AnthropicConfig{Type: AnthropicTypeV1}, "", Name},
		{AnthropicConfig{Type: AnthropicType, MaxCharacters: 5000}, "", NameAnthropic},
		{AnthropicConfig{Type: AnthropicType0429}, "", NameAnthropic},
		{AnthropicConfig{Type: AnthropicType0429, MaxCharacters: 10}, "max_characters exists only in text_editor_20250728; text_editor_20250429 has none", ""},
		{AnthropicConfig{Type: "text_editor_20241022"}, `type must be "text_editor_20250728", "text_editor_20250429" or "text_editor_20250124"`, ""},
		{AnthropicConfig{Type: AnthropicTypeV1, MaxCharacters: 10}, "max_characters exists only in text_editor_20250728; text_editor_20250124 has none", ""},
		{AnthropicConfig{Type: AnthropicType, MaxCharacters: -1}, "max_characters must be between 1 and", ""},
		{AnthropicConfig{Type: AnthropicType, Common: tools.Common{Name: "edit"}}, "name cannot be changed", ""},
		{AnthropicConfig{Type: AnthropicTypeV1, Common: tools.Common{Name: NameAnthropic}}, `names text_editor_20250124 "str_replace_editor"`, ""},
	} {
		cfg := c.cfg
		cfg.MaxOutputChars = DefaultMaxOutputChars
		err := cfg.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		case c.want == "" && cfg.Name != c.name:
			t.Errorf("%+v: name %q, want %q", c.cfg, cfg.Name, c.name)
		}
	}
}

func TestAnthropicDeclarationsAndSchemas(t *testing.T) {
	decl := func(tl tools.Tool) map[string]any { return tl.(tools.Native).Declaration(tools.FormatAnthropic) }
	cur := newAnthropic(t, AnthropicConfig{})
	if d := decl(cur); d["type"] != AnthropicType || d["name"] != NameAnthropic || len(d) != 2 {
		t.Fatalf("declaration: %v", d)
	}
	if d := decl(newAnthropic(t, AnthropicConfig{MaxCharacters: 2000})); d["max_characters"] != 2000 {
		t.Fatalf("declaration with max_characters: %v", d)
	}
	v1 := newAnthropic(t, AnthropicConfig{Type: AnthropicTypeV1})
	if d := decl(v1); d["type"] != AnthropicTypeV1 || d["name"] != Name || len(d) != 2 {
		t.Fatalf("v1 declaration: %v", d)
	}
	if d := decl(newAnthropic(t, AnthropicConfig{Type: AnthropicType0429})); d["type"] != AnthropicType0429 || d["name"] != NameAnthropic || len(d) != 2 {
		t.Fatalf("20250429 declaration: %v", d)
	}
	if d := cur.(tools.Native).Declaration("openai"); d != nil {
		t.Fatalf("openai: %v", d)
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	for _, c := range []struct {
		tl       tools.Tool
		commands string
		insert   string
		undo     bool
	}{
		{cur, "view create str_replace insert", "insert_text", false},
		{v1, "view create str_replace insert undo_edit", "new_str", true},
	} {
		if err := json.Unmarshal(c.tl.InputSchema(), &schema); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(schema.Properties["command"].Enum, " "); got != c.commands {
			t.Errorf("%s: commands %q", c.tl.Name(), got)
		}
		d := c.tl.Description()
		contains(t, d, "insert "+c.insert)
		if strings.Contains(d, "undo_edit") != c.undo {
			t.Errorf("%s: description and undo_edit:\n%s", c.tl.Name(), d)
		}
	}
	contains(t, newAnthropic(t, AnthropicConfig{MaxCharacters: 2000}).Description(), "about 2000 characters")
}

func TestAnthropicPresentation(t *testing.T) {
	v1 := newAnthropic(t, AnthropicConfig{Type: AnthropicTypeV1})
	call := &tools.Call{ID: "toolu_9", Arguments: json.RawMessage(`{"command":"undo_edit","path":"/r/a.py"}`)}
	if p := v1.Present(call, nil); p.Title != "Undo the last edit of /r/a.py" || p.Kind != "edit" {
		t.Fatalf("undo card: %+v", p)
	}
	cur := newAnthropic(t, AnthropicConfig{})
	call.Arguments = json.RawMessage(`{"command":"insert","path":"/r/a.py","insert_line":2,"insert_text":"x\n"}`)
	p := cur.Present(call, nil)
	if p.Title != "Edit /r/a.py" || len(p.Content) != 1 || *p.Content[0].NewText != "x\n" {
		t.Fatalf("insert card: %+v", p)
	}
	call.Arguments = json.RawMessage(`{"command":`)
	if p := cur.Present(call, nil); p.Kind != "other" || p.Title != NameAnthropic {
		t.Fatalf("generic card: %+v", p)
	}
}

// FuzzRestoreChange: the change undo_edit computes turns any current
// content into the content it restores, and touches only the bytes
// between their common prefix and suffix.
func FuzzRestoreChange(f *testing.F) {
	f.Add([]byte("a\r\n\tb\r\nc"), []byte("a\r\n\tB\r\nc"))
	f.Add([]byte(""), []byte("x\n"))
	f.Add([]byte("same"), []byte("same"))
	f.Add([]byte("aaaa"), []byte("aa"))
	f.Fuzz(func(t *testing.T, data, before []byte) {
		c := restoreChange(data, before)
		if c.start < 0 || c.start > c.end || c.end > len(data) {
			t.Fatalf("change [%d, %d) out of %d bytes", c.start, c.end, len(data))
		}
		got := append(append(append([]byte{}, data[:c.start]...), c.text...), data[c.end:]...)
		if string(got) != string(before) {
			t.Fatalf("restored %q, want %q", got, before)
		}
		if c.startLine != 1+strings.Count(string(data[:c.start]), "\n") {
			t.Fatalf("start line %d", c.startLine)
		}
	})
}

// FuzzInsertText: whatever a model sends, the translation to the editor's
// own arguments never panics, and what it passes on is arguments the
// editor reads, insert_text as new_str.
func FuzzInsertText(f *testing.F) {
	f.Add([]byte(`{"command":"insert","path":"/a","insert_line":0,"insert_text":"x"}`))
	f.Add([]byte(`{"command":"insert","insert_text":"x","new_str":"y"}`))
	f.Add([]byte(`{"insert_text":null,"new_str":"y"}`))
	f.Add([]byte(`{"insert_text":"\ud800"}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, args []byte) {
		out, err := insertText(args)
		if err != nil {
			return
		}
		var p params
		if err := tools.Decode(out, &p); err != nil {
			t.Fatalf("%s became %s, which the editor refuses: %v", args, out, err)
		}
		var in anthropicParams
		if tools.Decode(args, &in) == nil && in.InsertText != nil && (p.NewStr == nil || *p.NewStr != *in.InsertText) {
			t.Fatalf("insert_text %q became new_str %v", *in.InsertText, p.NewStr)
		}
	})
}

// BenchmarkUndoHistory measures what undo_edit's history adds to an edit:
// a str_replace of a 1 MB file through the current editor (no history)
// and through text_editor_20250124 (keeps the old content and a SHA-256 of
// the new), alternating the replacement so the file keeps its size.
func BenchmarkUndoHistory(b *testing.B) {
	for _, typ := range []string{AnthropicType, AnthropicTypeV1} {
		b.Run(typ, func(b *testing.B) {
			content := strings.Repeat("\tline of a source file, tab-indented;\n", 1<<20/38) + "marker_a\n"
			p := filepath.Join(b.TempDir(), "f.c")
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
			tl := NewAnthropic(tools.Host{}, AnthropicConfig{Type: typ, MaxOutputChars: DefaultMaxOutputChars})
			from, to := "marker_a", "marker_b"
			b.SetBytes(int64(len(content)))
			b.ResetTimer()
			for range b.N {
				raw, _ := json.Marshal(map[string]any{"command": "str_replace", "path": p, "old_str": from, "new_str": to})
				res, err := tl.Call(context.Background(), &tools.Call{Session: tools.Session{Key: "s"}, Arguments: raw})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				from, to = to, from
			}
		})
	}
}
