//go:build linux || darwin

package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// ageFile waits until p's change time is older, by the file system's own
// clock, than the margin the change-time check needs (see unchanged): a
// timestamp can be aged only by waiting, since nothing sets a change time
// back. The wait polls a fresh file's stamp; the bound is a hang guard.
func ageFile(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	c := changeTime(fi)
	probe := p + ".clock"
	defer os.Remove(probe)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := os.WriteFile(probe, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		pi, err := os.Stat(probe)
		if err != nil {
			t.Fatal(err)
		}
		if changeTime(pi).Sub(c) > coarseMargin+time.Second || c.Nanosecond()%1e7 != 0 && changeTime(pi).Sub(c) > 2*fineMargin {
			return
		}
	}
	t.Fatalf("%s did not age within 30 s", p)
}

// rewriteKeepingTimes writes text (as long as the old content) over p in
// place and sets its modification time back: what a program that wants
// its write unnoticed can do. Only the change time, which no program can
// set back, and the content still tell.
func rewriteKeepingTimes(t *testing.T, p, text string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(text), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now, err := os.Stat(p); err != nil || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("the rewrite changed the size or the modification time: %v %v", now, err)
	}
}

// Issue 16: Save trusts an old change time instead of reading the whole
// file again, and compares the content when the change time is recent. Either
// way a write between the read and the save, of the same size and with
// the modification time set back, is seen and nothing is overwritten. Not
// parallel: it sets testOnlyChecked, which every Save calls.
func TestSaveSeesAWriteThatKeepsSizeAndModTime(t *testing.T) {
	for _, tc := range []struct {
		name          string
		old           bool // the file's change time is older than the margin
		wantByContent bool
	}{
		{"old change time: the times settle it", true, false},
		{"recent change time: the content is compared", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f")
			save := func(rewrite string) (byContent []bool, err error) {
				write(t, p, "alpha\nbeta\n", 0o644)
				if tc.old {
					ageFile(t, p)
				}
				lf, data, release := openAndRead(t, p)
				defer release()
				if rewrite != "" {
					rewriteKeepingTimes(t, p, rewrite)
				}
				testOnlyChecked = func(c bool) { byContent = append(byContent, c) }
				defer func() { testOnlyChecked = nil }()
				_, err = lf.Save(data, Whole(data, []byte("alpha\nGAMMA\n")))
				return byContent, err
			}

			// Nobody else writes: the save goes through, by the path named.
			checked, err := save("")
			if err != nil {
				t.Fatalf("Save of an unchanged file: %v", err)
			}
			if len(checked) != 1 || checked[0] != tc.wantByContent {
				t.Fatalf("the check compared the content: %v, want [%v]", checked, tc.wantByContent)
			}
			if got := read(t, p); got != "alpha\nGAMMA\n" {
				t.Fatalf("file holds %q after the save", got)
			}

			// Another program rewrites it meanwhile: refused, its write kept.
			_, err = save("ALPHA\nbeta\n")
			if !errors.Is(err, ErrChanged) || err.Error() != "it was written to" {
				t.Fatalf("Save after a rewrite that kept size and mtime: %v", err)
			}
			if got := read(t, p); got != "ALPHA\nbeta\n" {
				t.Fatalf("the other program's write was lost: %q", got)
			}
			noDebris(t, dir)
		})
	}
}

// Issue 16: without a fresh stamp of the file system's clock (Unchanged, as
// apply_patch calls it) the content is always compared, old change time
// or not.
func TestUnchangedWithoutProbeComparesContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, "one\n", 0o644)
	ageFile(t, p)
	lf, data, release := openAndRead(t, p)
	defer release()
	var checked []bool
	testOnlyChecked = func(c bool) { checked = append(checked, c) }
	defer func() { testOnlyChecked = nil }()
	if err := lf.Unchanged(data); err != nil || len(checked) != 1 || !checked[0] {
		t.Fatalf("Unchanged = %v, compared the content: %v", err, checked)
	}
}

// The change time is trusted only when it is older, by more than the
// margin, than the file system's clock was when the file was looked at,
// that clock read off a fresh file's stamp minus the time elapsed since: a
// change time ahead of that clock (a server whose clock runs ahead, a
// step of the clock) or within the margin never is, nor one on a file
// system without change times.
func TestChangeTimeTrust(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, "one\n", 0o644)
	lf, release, err := OpenLocked(context.Background(), p, p)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	c := changeTime(lf.fi)
	margin := coarseMargin
	if c.Nanosecond()%1e7 != 0 {
		margin = fineMargin
	}
	for _, tc := range []struct {
		name  string
		probe *clockProbe
		want  bool
	}{
		{"no probe", nil, false},
		{"no change time on the probe", &clockProbe{at: lf.seen}, false},
		{"as old as the file", &clockProbe{stamp: c, at: lf.seen}, false},
		{"within the margin", &clockProbe{stamp: c.Add(margin / 2), at: lf.seen}, false},
		{"the file's change time ahead of the file system's clock", &clockProbe{stamp: c.Add(-time.Hour), at: lf.seen}, false},
		{"older than the margin", &clockProbe{stamp: c.Add(margin + time.Second), at: lf.seen}, true},
		{"older, but only counting the time elapsed since", &clockProbe{stamp: c.Add(margin + time.Second), at: lf.seen.Add(2 * time.Second)}, false},
	} {
		if got := lf.settledByChangeTime(tc.probe); got != tc.want {
			t.Errorf("%s: trusted %v, want %v", tc.name, got, tc.want)
		}
	}
	fresh, err := os.Create(p + ".probe")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	probe, err := takeProbe(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if lf.settledByChangeTime(probe) {
		t.Error("trusted a change time within the margin of a fresh file's")
	}
}
