//go:build linux

package editor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/tools"
)

// workspaceWrite is a workspace-write policy for ws with no writable
// temporary directory, closed when the test ends; the test is skipped
// where the kernel has no Landlock.
func workspaceWrite(t *testing.T, ws string) *sandbox.Policy {
	t.Helper()
	if s := sandbox.Probe(); s.Backend != sandbox.BackendLandlock {
		t.Skipf("no Landlock here: %s", s.Reason)
	}
	off := false
	p, err := sandbox.Resolve(sandbox.Request{Session: &sandbox.Config{Mode: sandbox.ModeWorkspaceWrite, WritableTmp: &off}, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// Issue 12: in a sandboxed session every write outside the policy is an
// isError result naming the path and the mode, and the file is untouched;
// with the path check taken away, the kernel (the edit runs on a confined
// thread) still refuses.
func TestSandboxHoldsTheEditor(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	p := workspaceWrite(t, ws)
	target := filepath.Join(out, "f.txt")
	if err := os.WriteFile(target, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	tl := newTool(t, 0)
	edit := func(sess tools.Session, args map[string]any) *tools.Result {
		res, err := tl.Call(context.Background(), &tools.Call{ID: "c", Session: sess, Arguments: mustJSONArgs(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	checked := tools.Session{ID: "s", Cwd: ws, Sandbox: p, PathPolicy: p.PathPolicy()}
	kernelOnly := tools.Session{ID: "s", Cwd: ws, Sandbox: p}
	for _, args := range []map[string]any{
		{"command": "create", "path": filepath.Join(out, "new.txt"), "file_text": "x\n"},
		{"command": "str_replace", "path": target, "old_str": "two", "new_str": "2"},
		{"command": "insert", "path": target, "insert_line": 0, "new_str": "zero"},
		{"command": "str_replace", "path": filepath.Join(ws, "link.txt"), "old_str": "two", "new_str": "2"},
	} {
		res := edit(checked, args)
		if !res.IsError {
			t.Fatalf("%v: %s", args, res.Text)
		}
		contains(t, res.Text, "this session's sandbox is workspace-write", out)
		res = edit(kernelOnly, args)
		if !res.IsError {
			t.Fatalf("the kernel let %v through: %s", args, res.Text)
		}
		contains(t, res.Text, "permission denied")
	}
	wantFile(t, target, "one\ntwo\n")
	if _, err := os.Stat(filepath.Join(out, "new.txt")); err == nil {
		t.Fatal("a file was created outside")
	}
	noDebris(t, out)
	if res := edit(checked, map[string]any{"command": "create", "path": filepath.Join(ws, "in.txt"), "file_text": "in\n"}); res.IsError {
		t.Fatal(res.Text)
	}
	if res := edit(kernelOnly, map[string]any{"command": "view", "path": target}); res.IsError {
		t.Fatal(res.Text)
	}
}

// Issue 16: a large settled file is mapped on the sandbox's confined
// thread like any other file work: inside the workspace the edit goes
// through; outside it the kernel refuses it before anything is mapped or
// written.
func TestSandboxHoldsTheMappedEdit(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	p := workspaceWrite(t, ws)
	text := mappedText()
	inside, outside := filepath.Join(ws, "big.c"), filepath.Join(out, "big.c")
	for _, f := range []string{inside, outside} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		waitOld(t, f)
	}
	tl := newTool(t, 0)
	kernelOnly := tools.Session{ID: "s", Cwd: ws, Sandbox: p}
	for _, f := range []string{inside, outside} {
		res, err := tl.Call(context.Background(), &tools.Call{ID: "c", Session: kernelOnly, Arguments: mustJSONArgs(replaceArgs(f, "\ttarget();", "\ttarget(1);"))})
		if err != nil {
			t.Fatal(err)
		}
		if f == outside {
			if !res.IsError {
				t.Fatalf("the kernel let an edit outside through: %s", res.Text)
			}
			contains(t, res.Text, "permission denied")
			wantFile(t, outside, text)
			noDebris(t, out)
			continue
		}
		if res.IsError {
			t.Fatalf("edit inside the workspace: %s", res.Text)
		}
	}
	wantFile(t, inside, strings.Replace(text, "\ttarget();", "\ttarget(1);", 1))
}
