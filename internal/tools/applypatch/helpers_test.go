package applypatch

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// workdir writes files (relative path → content) into a new temp dir and
// returns it with symlinks resolved.
func workdir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// call runs a tool with raw JSON arguments in a session rooted at cwd.
func call(t *testing.T, tl tools.Tool, sess tools.Session, args string) *tools.Result {
	t.Helper()
	res, err := tl.Call(context.Background(), &tools.Call{ID: "call_1", Session: sess, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("Call(%s): Go error %v", args, err)
	}
	if res == nil {
		t.Fatalf("Call(%s): nil result", args)
	}
	return res
}

func session(cwd string) tools.Session { return tools.Session{ID: "s1", Cwd: cwd} }

// patchArgs wraps a patch text as the function tool's arguments.
func patchArgs(t *testing.T, text string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"patch": text})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// opArgs builds the native shape's arguments; diff nil leaves it out.
func opArgs(t *testing.T, kind, path string, diff *string) string {
	t.Helper()
	op := map[string]any{"type": kind, "path": path}
	if diff != nil {
		op["diff"] = *diff
	}
	b, err := json.Marshal(map[string]any{"operation": op})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func str(s string) *string { return &s }

// snapshot records every entry under dir: type, mode, bytes or link target.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			v += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("tree changed:\nbefore %q\nafter  %q", before, after)
	}
	noDebris(t, dir)
}

func noDebris(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".shellport-") {
			t.Errorf("temporary file %s left behind", p)
		}
		return nil
	})
}

func wantFile(t *testing.T, p, want string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Fatalf("%s holds %q, want %q", p, b, want)
	}
}

func contains(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Fatalf("text lacks %q:\n%s", p, s)
		}
	}
}
