package editor

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func ctimeOf(t *testing.T, p string) time.Time {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.Ctim.Unix())
}

// waitOld waits until p's change time is old enough, by the file system's
// own clock, for the save's check to trust it (fileio's margins: 100 ms
// for nanosecond stamps, 3 s for whole seconds). The bound is a hang guard.
func waitOld(t *testing.T, p string) {
	t.Helper()
	c := ctimeOf(t, p)
	need := 4 * time.Second
	if c.Nanosecond()%1e7 != 0 {
		need = 300 * time.Millisecond
	}
	probe := filepath.Join(filepath.Dir(p), "clock.probe")
	defer os.Remove(probe)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if ctimeOf(t, probe).Sub(c) > need {
			return
		}
	}
	t.Fatalf("%s did not age within 30 s", p)
}

// Issue 16: the save trusts an old change time instead of comparing the
// whole file again. A program that rewrites the file between the edit's
// read and its save, keeping the size and setting the modification time
// back, still makes the edit fail, and its write is kept: the change time
// moved, and nothing can set it back.
func TestEditSeesAWriteThatKeepsSizeAndModTime(t *testing.T) {
	p := writeFile(t, "old.txt", "alpha\nbeta\n")
	waitOld(t, p)
	testOnlyBeforeSave = writeHidingIt(t, p, "ALPHA\n")
	got := fails(t, newTool(t, 0), replaceArgs(p, "beta", "gamma"))
	testOnlyBeforeSave = nil
	contains(t, got, p+" changed on disk after this edit read it (it was written to); the edit was not made, so that change is kept. View the file again and redo the edit")
	wantFile(t, p, "ALPHA\nbeta\n")
	noDebris(t, filepath.Dir(p))
}

// writeHidingIt is a testOnlyBeforeSave hook: another program overwrites
// the start of p with text, keeping its size, and sets its modification
// time back, as one that hides its write would. Only the change time
// still tells.
func writeHidingIt(t *testing.T, p, text string) func(string) {
	return func(string) {
		testOnlyBeforeSave = nil
		fi, err := os.Stat(p)
		if err != nil {
			t.Error(err)
			return
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		_, _ = f.WriteAt([]byte(text), 0)
		_ = f.Close()
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Error(err)
		}
	}
}
