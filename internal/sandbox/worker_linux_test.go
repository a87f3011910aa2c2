//go:build linux

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Issue 12: Run holds the file tools to the policy with the kernel: on the
// confined thread a write outside fails whatever path reaches it, while
// every other goroutine of the process (the runtime, other sessions) keeps
// its full access, during and after.
func TestRunConfinesItsThreadOnly(t *testing.T) {
	p, ws, out := workspace(t)
	defer p.Close()
	if err := os.Symlink(out, filepath.Join(ws, "link-out")); err != nil {
		t.Fatal(err)
	}
	var inside, outside, viaLink, viaProc error
	var wg sync.WaitGroup
	var freeFails int
	var mu sync.Mutex
	for i := range 100 {
		wg.Go(func() {
			if err := os.WriteFile(filepath.Join(out, "free-"+strings.Repeat("x", i%7+1)), nil, 0o644); err != nil {
				mu.Lock()
				freeFails++
				mu.Unlock()
			}
		})
	}
	err := p.Run(func() {
		inside = os.WriteFile(filepath.Join(ws, "in"), []byte("in"), 0o644)
		outside = os.WriteFile(filepath.Join(out, "out"), []byte("out"), 0o644)
		viaLink = os.WriteFile(filepath.Join(ws, "link-out", "out"), []byte("out"), 0o644)
		viaProc = os.WriteFile("/proc/self/root"+filepath.Join(out, "out"), []byte("out"), 0o644)
	})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if inside != nil {
		t.Fatalf("write inside: %v", inside)
	}
	for name, err := range map[string]error{"outside": outside, "through a link": viaLink, "through /proc/self/root": viaProc} {
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("write %s: %v, want permission denied", name, err)
		}
	}
	if freeFails != 0 {
		t.Fatalf("%d writes of other goroutines failed", freeFails)
	}
	// Many calls at once get their own confined threads, and the
	// process's other threads stay free afterwards.
	for range 20 {
		wg.Go(func() {
			_ = p.Run(func() {
				if err := os.WriteFile(filepath.Join(out, "again"), nil, 0o644); err == nil {
					t.Error("a concurrent confined write outside succeeded")
				}
			})
		})
	}
	wg.Wait()
	p.Close()
	for i := range 50 {
		wg.Go(func() {
			if err := os.WriteFile(filepath.Join(out, "after-"+strings.Repeat("y", i%5+1)), nil, 0o644); err != nil {
				t.Errorf("after Close, a goroutine cannot write: %v", err)
			}
		})
	}
	wg.Wait()
	if err := p.Run(func() {}); !errors.Is(err, errClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
}

func TestRunRaisesAPanicInTheCaller(t *testing.T) {
	p, _, _ := workspace(t)
	defer p.Close()
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "boom") {
			t.Fatalf("recovered %v", v)
		}
	}()
	_ = p.Run(func() { panic("boom") })
	t.Fatal("no panic")
}

// BenchmarkRun is the cost of handing one file operation to a confined
// thread and back (an idle worker takes it), against a direct call.
func BenchmarkRun(b *testing.B) {
	if s := Probe(); s.Backend != BackendLandlock {
		b.Skipf("no Landlock here: %s", s.Reason)
	}
	ws := b.TempDir()
	off := false
	p, err := Resolve(Request{Session: &Config{Mode: ModeWorkspaceWrite, WritableTmp: &off}, Cwd: ws})
	if err != nil {
		b.Skip(err)
	}
	defer p.Close()
	_ = p.Run(func() {})
	for b.Loop() {
		if err := p.Run(func() {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestrictions is what a sandboxed spawn builds: a Landlock
// ruleset with the policy's rules and the seccomp program in a pipe.
func BenchmarkRestrictions(b *testing.B) {
	ws := b.TempDir()
	p, err := Resolve(Request{Session: &Config{Mode: ModeWorkspaceWrite}, Cwd: ws})
	if err != nil || !p.Restricted() {
		b.Skipf("no sandbox here: %v", err)
	}
	for b.Loop() {
		r, err := p.Restrictions()
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
