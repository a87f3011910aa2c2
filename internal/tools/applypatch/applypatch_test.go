package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/patch"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/fileio"
)

func TestEnvelopeMultiFile(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{
		"src/app.py": "def run():\n    items = load()\n    return items\n",
		"src/old.py": "A = 1\n",
		"tmp/x.txt":  "x\n",
	})
	res := call(t, New(tools.Host{}, Config{}), session(dir), patchArgs(t, `*** Begin Patch
*** Add File: docs/notes.md
+# Notes
+text
*** Update File: src/app.py
@@ def run():
     items = load()
-    return items
+    return sorted(items)
*** Update File: src/old.py
*** Move to: src/new.py
*** Delete File: tmp/x.txt
*** End Patch`))
	if res.IsError {
		t.Fatal(res.Text)
	}
	want := "Applied the patch to 4 files:\n- created docs/notes.md (2 lines)\n- updated src/app.py: 1 hunk at line 3, +1 -1 lines\n- moved src/old.py to src/new.py\n- deleted tmp/x.txt"
	if res.Text != want {
		t.Fatalf("text:\n%s\nwant:\n%s", res.Text, want)
	}
	wantFile(t, filepath.Join(dir, "src/app.py"), "def run():\n    items = load()\n    return sorted(items)\n")
	wantFile(t, filepath.Join(dir, "src/new.py"), "A = 1\n")
	raw, _ := json.Marshal(res.Structured)
	wantJSON := `{"files":[{"line":1,"lines":2,"op":"add","path":"docs/notes.md"},{"added":1,"line":3,"op":"update","path":"src/app.py","removed":1},{"op":"move","path":"src/old.py","to":"src/new.py"},{"op":"delete","path":"tmp/x.txt"}],"status":"completed"}`
	if string(raw) != wantJSON {
		t.Fatalf("structured %s", raw)
	}
}

// The native shape: one operation per call, the result's status the value
// of apply_patch_call_output.status.
func TestOpenAIShape(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"app.py": "def f():\n    pass\n", "gone.txt": "bye\n"})
	tl := NewOpenAI(tools.Host{}, Config{})
	for _, tc := range []struct{ args, text string }{
		{opArgs(t, "create_file", "notes/todo.md", str("+# Todo\n+- one\n")), "Created notes/todo.md (2 lines)."},
		{opArgs(t, "update_file", "app.py", str("@@ def f():\n-    pass\n+    return 1\n")), "Updated app.py: 1 hunk at line 2, +1 -1 lines."},
		{opArgs(t, "delete_file", "gone.txt", nil), "Deleted gone.txt."},
	} {
		res := call(t, tl, session(dir), tc.args)
		if res.IsError || res.Text != tc.text || res.Structured["status"] != "completed" {
			t.Fatalf("%s:\n%+v", tc.args, res)
		}
	}
	wantFile(t, filepath.Join(dir, "notes/todo.md"), "# Todo\n- one\n")
	wantFile(t, filepath.Join(dir, "app.py"), "def f():\n    return 1\n")
	// Refusals speak of operations, not envelope sections.
	res := call(t, tl, session(dir), opArgs(t, "create_file", "app.py", str("+x\n")))
	contains(t, res.Text, "app.py already exists (a file); create_file never overwrites; use update_file to change it, or delete_file first")
	// A delete_file with "diff": null, as some clients serialise it.
	res = call(t, tl, session(dir), `{"operation": {"type": "delete_file", "path": "notes/todo.md", "diff": null}}`)
	if res.IsError {
		t.Fatal(res.Text)
	}
	res = call(t, tl, session(dir), opArgs(t, "update_file", "app.py", str("-    pass\n+    x\n")))
	if !res.IsError || res.Structured["status"] != "failed" {
		t.Fatalf("failed update: %+v", res)
	}
	contains(t, res.Text, "The patch was not applied; no file was changed.\napp.py, hunk 1 (starting \"    pass\"): ", "none of its 1 unchanged or removed lines is in the file")
}

func TestArgumentErrors(t *testing.T) {
	t.Parallel()
	env, op := New(tools.Host{}, Config{}), NewOpenAI(tools.Host{}, Config{})
	for _, tc := range []struct {
		tl         tools.Tool
		args, want string
	}{
		{env, `{}`, "patch is required"},
		{env, `{"patch_text": "x"}`, `unknown argument "patch_text"; this tool takes one argument, "patch"`},
		{env, `{"patch": 3}`, `"patch" must be a string`},
		{env, `{"patch": "*** Begin Patch\n*** Add File: a\n+x\n"}`, "cut off"},
		{op, `{}`, "operation is required"},
		{op, `{"type": "create_file", "path": "a", "diff": "+x"}`, `unknown argument "type"; the arguments are {"operation"`},
		{op, `{"operation": {"type": "touch_file", "path": "a"}}`, `unknown type "touch_file"`},
		{op, `{"operation": {"type": "create_file", "path": "a", "diff": "+x", "mode": 1}}`, `unknown argument "operation.mode"`},
	} {
		res := call(t, tc.tl, session(t.TempDir()), tc.args)
		if !res.IsError || res.Structured["status"] != "failed" {
			t.Fatalf("%s: %+v", tc.args, res)
		}
		contains(t, res.Text, "The patch was not applied", tc.want)
	}
}

// Issue 13: hostile patches through the tool; every file's bytes are the
// same before and after.
func TestHostilePatchesDamageNothing(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.py":      "def f():\n    return 1\n\ndef g():\n    return 1\n",
		"crlf.txt":  "one\r\ntwo\r\nthree\r\n",
		"bom.txt":   "\uFEFFhead\nbody\n",
		"nonl.txt":  "last line",
		"empty.txt": "",
		"bin.dat":   "PK\x03\x04\x00\x00binary",
		"sub/k.txt": "keep\n",
	}
	big := strings.Repeat("filler line\n", 200_000)
	files["big.txt"] = big + "needle\n"
	for name, tc := range map[string]struct{ patch, want string }{
		"wrong context":       {"*** Update File: a.py\n@@ def f():\n-    return 2\n+    return 3\n", `a.py, hunk 1 (starting "    return 2")`},
		"duplicated context":  {"*** Update File: a.py\n-    return 1\n+    return 2\n", "match 2 places (lines 2 and 5)"},
		"overlapping hunks":   {"*** Update File: crlf.txt\n@@\n one\n-two\n+2\n three\n@@\n three\n+four\n", "must not overlap"},
		"hunks out of order":  {"*** Update File: crlf.txt\n@@\n-three\n+3\n@@\n-one\n+1\n", "hunk 2"},
		"binary file":         {"*** Update File: bin.dat\n-PK\n+x\n", "binary file"},
		"delete missing":      {"*** Delete File: missing.txt\n", "missing.txt does not exist"},
		"add existing":        {"*** Add File: sub/k.txt\n+x\n", "sub/k.txt already exists"},
		"move onto existing":  {"*** Update File: nonl.txt\n*** Move to: sub/k.txt\n", "a move never overwrites"},
		"second file fails":   {"*** Update File: crlf.txt\n-two\n+2\n*** Update File: big.txt\n-haystack\n+x\n", "big.txt, hunk 1"},
		"end of file wrong":   {"*** Update File: big.txt\n-filler line\n+x\n*** End of File\n", "not the last lines"},
		"anchor not in file":  {"*** Update File: a.py\n@@ def h():\n-    return 1\n+    return 2\n", `"def h():" is not a line of the file`},
		"update a directory":  {"*** Update File: sub\n-x\n+y\n", "sub is a directory"},
		"pure add no context": {"*** Update File: nonl.txt\n@@\n+x\n", "only adds lines"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := workdir(t, files)
			before := snapshot(t, dir)
			res := call(t, New(tools.Host{}, Config{}), session(dir), patchArgs(t, "*** Begin Patch\n*** Add File: new.txt\n+n\n"+tc.patch+"*** End Patch\n"))
			if !res.IsError || res.Structured["status"] != "failed" {
				t.Fatalf("applied: %s", res.Text)
			}
			contains(t, res.Text, "The patch was not applied; no file was changed.\n", tc.want)
			sameTree(t, dir, before)
		})
	}
}

// Issue 13: the bytes a patch must keep — CRLF with an LF patch, a BOM, a
// missing final newline, tabs, an empty file and a huge one.
func TestPreservesBytes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("\tfiller line  \n", 200_000)
	dir := workdir(t, map[string]string{
		"crlf.txt":  "one\r\ntwo\r\nthree\r\n",
		"bom.txt":   "\uFEFFhead\nbody\n",
		"nonl.txt":  "a\nlast line",
		"empty.txt": "",
		"Makefile":  "all:\n\tgo build\n\tgo vet\n",
		"big.txt":   big + "needle\n" + big,
	})
	res := call(t, New(tools.Host{}, Config{}), session(dir), patchArgs(t, `*** Begin Patch
*** Update File: crlf.txt
 one
-two
+2
+2b
*** Update File: bom.txt
-head
+HEAD
*** Update File: nonl.txt
 a
-last line
+final line
*** Update File: empty.txt
+first
*** Update File: Makefile
 all:
 	go build
-	go vet
+	go test
*** Update File: big.txt
-needle
+thread
*** End Patch
`))
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantFile(t, filepath.Join(dir, "crlf.txt"), "one\r\n2\r\n2b\r\nthree\r\n")
	wantFile(t, filepath.Join(dir, "bom.txt"), "\uFEFFHEAD\nbody\n")
	wantFile(t, filepath.Join(dir, "nonl.txt"), "a\nfinal line")
	wantFile(t, filepath.Join(dir, "empty.txt"), "first\n")
	wantFile(t, filepath.Join(dir, "Makefile"), "all:\n\tgo build\n\tgo test\n")
	wantFile(t, filepath.Join(dir, "big.txt"), big+"thread\n"+big)
	noDebris(t, dir)
}

// Issue 13: with the session's path policy (its sandbox), a path outside
// the session directory — absolute, through .. or through a symbolic
// link — is refused, and the outside stays as it was.
func TestPathPolicy(t *testing.T) {
	t.Parallel()
	outside := workdir(t, map[string]string{"secret.txt": "secret\n"})
	dir := workdir(t, map[string]string{"in.txt": "in\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	sess := session(dir)
	sess.PathPolicy = fileio.Within(dir)
	secret := filepath.Join(outside, "secret.txt")
	for _, p := range []string{secret, "../" + filepath.Base(outside) + "/secret.txt", "escape/secret.txt"} {
		for tl, args := range map[tools.Tool]string{
			New(tools.Host{}, Config{}):       patchArgs(t, "*** Begin Patch\n*** Update File: in.txt\n-in\n+IN\n*** Update File: "+p+"\n-secret\n+pwned\n*** End Patch\n"),
			NewOpenAI(tools.Host{}, Config{}): opArgs(t, "update_file", p, str("-secret\n+pwned\n")),
		} {
			before, beforeIn := snapshot(t, outside), snapshot(t, dir)
			res := call(t, tl, sess, args)
			if !res.IsError {
				t.Fatalf("%s: applied", p)
			}
			contains(t, res.Text, "is outside the directories this session may change")
			sameTree(t, outside, before)
			sameTree(t, dir, beforeIn)
		}
	}
	// Without a policy (no sandbox) the session may change any path, as
	// the editor may.
	res := call(t, NewOpenAI(tools.Host{}, Config{}), session(dir), opArgs(t, "update_file", "escape/secret.txt", str("-secret\n+changed\n")))
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantFile(t, secret, "changed\n")
}

// Invalid UTF-8 in the arguments never reaches a file.
func TestInvalidUTF8Patch(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"a.txt": "caf\xc3\xa9\n"})
	before := snapshot(t, dir)
	args := "{\"patch\": \"*** Begin Patch\\n*** Update File: a.txt\\n-caf\xc3\xa9\\n+caf\xe9\\n*** End Patch\\n\"}"
	res := call(t, New(tools.Host{}, Config{}), session(dir), args)
	after := snapshot(t, dir)
	if !res.IsError {
		// The JSON decoder turned the bad byte into U+FFFD, which is valid
		// UTF-8; then the file holds that, never the raw byte.
		if strings.Contains(after["a.txt"], "\xe9\n") {
			t.Fatalf("invalid UTF-8 written: %q", after["a.txt"])
		}
		return
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatal("tree changed")
	}
}

func TestSurface(t *testing.T) {
	t.Parallel()
	for _, tl := range []tools.Tool{New(tools.Host{}, Config{}), NewOpenAI(tools.Host{}, Config{})} {
		if tl.Name() != "apply_patch" || !json.Valid(tl.InputSchema()) {
			t.Fatalf("%s: schema %s", tl.Name(), tl.InputSchema())
		}
	}
}

// A call cancelled before it runs writes nothing and returns the context's
// error.
func TestCancelled(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(tools.Host{}, Config{}).Call(ctx, &tools.Call{Session: session(dir), Arguments: json.RawMessage(patchArgs(t, "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** End Patch\n"))})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	wantFile(t, filepath.Join(dir, "a.txt"), "a\n")
}

// The partial-failure header is used only when undoing failed.
func TestFailedHeaders(t *testing.T) {
	t.Parallel()
	res := failed(fmt.Errorf("cannot write b: boom; undoing … failed for a: %w", patch.ErrPartial))
	if !strings.HasPrefix(res.Text, "The patch failed partway") || res.Structured["partial"] != true {
		t.Fatalf("%+v", res)
	}
	if res := failed(errors.New("x")); !strings.HasPrefix(res.Text, "The patch was not applied; no file was changed.\nx") {
		t.Fatalf("%+v", res)
	}
}

// Notes say which hunks matched loosely and when a link was followed.
func TestNotes(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"real.py": "if x:   \n\tpass\n"})
	if err := os.Symlink("real.py", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	res := call(t, New(tools.Host{}, Config{}), session(dir), patchArgs(t, "*** Begin Patch\n*** Update File: link.py\n if x:\n-    pass\n+\treturn\n*** End Patch\n"))
	if res.IsError {
		t.Fatal(res.Text)
	}
	want := "Updated link.py: 1 hunk at line 2, +1 -1 lines.\nNote: link.py is a symbolic link; the change went to " + filepath.Join(dir, "real.py") +
		" and the link was kept.\nNote: in link.py, hunk 1 matched only when whitespace at the start and end of lines was ignored; check the changed lines."
	if res.Text != want {
		t.Fatalf("text:\n%s\nwant:\n%s", res.Text, want)
	}
	wantFile(t, filepath.Join(dir, "real.py"), "if x:   \n\treturn\n")
}
