package patch

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// tree writes files (path relative to a new temp dir → content) and
// returns the dir, symlinks resolved so that paths compare as written.
func tree(t *testing.T, files map[string]string) string {
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

// entry is one file system entry as a snapshot sees it.
type entry struct {
	Mode    fs.FileMode
	Content string // a file's bytes or a link's target
}

// snapshot records every entry under dir: its type and mode, and the
// bytes of files and targets of links.
func snapshot(t *testing.T, dir string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{Mode: fi.Mode()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.Content, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			var b []byte
			b, err = os.ReadFile(p)
			e.Content = string(b)
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = e
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unchanged fails unless dir holds exactly what before recorded.
func unchanged(t *testing.T, dir string, before map[string]entry) {
	t.Helper()
	after := snapshot(t, dir)
	if !reflect.DeepEqual(before, after) {
		for k, v := range after {
			if b, ok := before[k]; !ok || b != v {
				t.Errorf("%s: before %+v, after %+v", k, before[k], v)
			}
		}
		for k, v := range before {
			if _, ok := after[k]; !ok {
				t.Errorf("%s: gone (was %+v)", k, v)
			}
		}
		t.FailNow()
	}
}

// noDebris fails if a temporary or set-aside file is left under dir.
func noDebris(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".shellport-") {
			t.Errorf("temporary file %s left behind", p)
		}
		return nil
	})
}

func apply(t *testing.T, dir, text string) (*Result, error) {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, text)
	}
	return Apply(context.Background(), p, Options{Cwd: dir})
}

func mustApply(t *testing.T, dir, text string) *Result {
	t.Helper()
	res, err := apply(t, dir, text)
	if err != nil {
		t.Fatalf("Apply: %v\n%s", err, text)
	}
	noDebris(t, dir)
	return res
}

// applyFails applies text in dir, expects an error holding every part, and
// checks that nothing under dir changed.
func applyFails(t *testing.T, dir, text string, opt *Options, parts ...string) error {
	t.Helper()
	before := snapshot(t, dir)
	p, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, text)
	}
	o := Options{Cwd: dir}
	if opt != nil {
		o = *opt
	}
	_, err = Apply(context.Background(), p, o)
	if err == nil {
		t.Fatalf("Apply succeeded, want an error with %q\n%s", parts, text)
	}
	for _, part := range parts {
		if !strings.Contains(err.Error(), part) {
			t.Fatalf("error lacks %q:\n%v", part, err)
		}
	}
	unchanged(t, dir, before)
	noDebris(t, dir)
	return err
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantFile(t *testing.T, p, want string) {
	t.Helper()
	if got := readFile(t, p); got != want {
		t.Fatalf("%s holds %q, want %q", p, got, want)
	}
}

func gone(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Fatalf("%s still exists", p)
	}
}

func within(dir string) *Options { return &Options{Cwd: dir, Policy: fileio.Within(dir)} }
