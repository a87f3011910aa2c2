//go:build linux || darwin

package fileio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// bigText is text of at least mapMin bytes with one "MARK" line near its
// end.
func bigText() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < mapMin+4096; i++ {
		b.WriteString("\tline of ordinary text, numbered ")
		b.WriteString(strings.Repeat("x", i%40))
		b.WriteString("\n")
	}
	b.WriteString("MARK\ntail\n")
	return b.Bytes()
}

// lockAndMap locks p and loads it with MapForChange; the caller releases.
func lockAndMap(t *testing.T, p string) (*Locked, []byte, func()) {
	t.Helper()
	lf, release, err := OpenLocked(context.Background(), p, p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := lf.MapForChange(p, "bash")
	if err != nil {
		release()
		t.Fatal(err)
	}
	return lf, data, release
}

// markChange replaces the MARK line of data.
func markChange(t *testing.T, data []byte) Change {
	t.Helper()
	i := bytes.Index(data, []byte("MARK"))
	if i < 0 {
		t.Fatal("no MARK in the loaded content")
	}
	return Change{Start: i, End: i + 4, Text: []byte("DONE")}
}

// Issue 16: a large file whose change time is settled is mapped, not
// copied, and saved from the mapping byte for byte; a recent or
// hard-linked one is read into memory as before.
func TestMapForChangeMapsOnlyWhatSaveCanVouchFor(t *testing.T) {
	t.Parallel()
	text := bigText()
	want := bytes.Replace(text, []byte("MARK"), []byte("DONE"), 1)
	dir := t.TempDir()

	settled := filepath.Join(dir, "settled")
	write(t, settled, string(text), 0o640)
	ageFile(t, settled)
	lf, data, release := lockAndMap(t, settled)
	if lf.mapped == nil {
		t.Fatal("a settled large file was not mapped")
	}
	if !bytes.Equal(data, text) {
		t.Fatal("the mapping does not hold the file's content")
	}
	if how, err := lf.Save(data, markChange(t, data)); err != nil || how.InPlace {
		t.Fatalf("Save from the mapping = %+v, %v", how, err)
	}
	release()
	if got := read(t, settled); got != string(want) {
		t.Fatalf("the saved file differs from the planned change (%d bytes, want %d)", len(got), len(want))
	}
	if fi, err := os.Stat(settled); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode after the save: %v, %v", fi, err)
	}

	recent := filepath.Join(dir, "recent")
	write(t, recent, string(text), 0o644)
	lf, _, release = lockAndMap(t, recent)
	if lf.mapped != nil {
		t.Error("a file changed just now was mapped")
	}
	release()

	linked := filepath.Join(dir, "linked")
	write(t, linked, string(text), 0o644)
	if err := os.Link(linked, linked+".2"); err != nil {
		t.Fatal(err)
	}
	ageFile(t, linked)
	lf, _, release = lockAndMap(t, linked)
	if lf.mapped != nil {
		t.Error("a file with two hard links (written in place) was mapped")
	}
	release()

	small := filepath.Join(dir, "small")
	write(t, small, "MARK\n", 0o644)
	ageFile(t, small)
	lf, _, release = lockAndMap(t, small)
	if lf.mapped != nil {
		t.Error("a small file was mapped")
	}
	release()
	noDebris(t, dir)
}

// Issue 16: when Save cannot prove the mapped file unchanged by its change
// time (here: no record of when it was locked), it writes nothing and
// answers ErrReadAgain rather than compare the file with its own mapping;
// read into memory, the same change then goes through.
func TestMappedSaveAsksToReadAgain(t *testing.T) {
	t.Parallel()
	text, dir := bigText(), t.TempDir()
	p := filepath.Join(dir, "f")
	lf, data := mapSettled(t, p, text)
	lf.seen = time.Time{} // the change time settles nothing now
	if _, err := lf.Save(data, markChange(t, data)); !errors.Is(err, ErrReadAgain) {
		t.Fatalf("Save of an unvouched mapping = %v, want ErrReadAgain", err)
	}
	if read(t, p) != string(text) {
		t.Fatal("the file was written although Save refused")
	}
	noDebris(t, dir)
	data, err := lf.ReadForChange(p, "bash")
	if err != nil || lf.mapped != nil {
		t.Fatalf("ReadForChange = %v, mapping kept: %v", err, lf.mapped != nil)
	}
	if _, err := lf.Save(data, markChange(t, data)); err != nil {
		t.Fatalf("Save after reading again: %v", err)
	}
	if !strings.Contains(read(t, p), "\nDONE\n") {
		t.Fatal("the change is not in the file")
	}
	noDebris(t, dir)
}

// Issue 16: a program that ignores the locks and cuts a mapped file short
// makes reading the lost pages fault (SIGBUS). On a goroutine that asked
// for it the fault is a refusal wrapping ErrChanged, not a crash of the
// runtime, whether plain Go or the runtime's assembly (bytes.IndexByte)
// reads the page; and a Save from the cut mapping writes nothing.
func TestMappedFileCutShortIsARefusal(t *testing.T) {
	t.Parallel()
	text, dir := bigText(), t.TempDir()
	p := filepath.Join(dir, "f")
	lf, data := mapSettled(t, p, text)
	if err := os.Truncate(p, 4096); err != nil {
		t.Fatal(err)
	}
	readLast := func(read func() int) (got int, err error) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer lf.CatchFault(&err, p)
		return read(), nil
	}
	for name, read := range map[string]func() int{
		"a Go loop":       func() int { return int(data[len(data)-1]) },
		"bytes.IndexByte": func() int { return bytes.IndexByte(data[8192:], 0) },
		"bytes.Count":     func() int { return bytes.Count(data, []byte{'\n'}) },
	} {
		got, err := readLast(read)
		if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "cut short") {
			t.Errorf("%s over the lost pages = %d, %v; want a refusal wrapping ErrChanged", name, got, err)
		}
	}
	if _, err := lf.Save(data, Change{Start: 10, End: 11, Text: []byte("Z")}); !errors.Is(err, ErrChanged) {
		t.Fatalf("Save from a cut mapping = %v, want ErrChanged", err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != 4096 {
		t.Fatalf("the cut file was written: %v, %v", fi, err)
	}
	noDebris(t, dir)
}

// A panic that is not a fault in the mapping goes on through CatchFault.
func TestCatchFaultPassesOtherPanics(t *testing.T) {
	t.Parallel()
	lf := &Locked{}
	defer func() {
		if r := recover(); r != "not a fault" {
			t.Fatalf("recovered %v, want the original panic", r)
		}
	}()
	var err error
	func() {
		defer lf.CatchFault(&err, "f")
		panic("not a fault")
	}()
	t.Fatal("the panic was swallowed")
}

// mapSettled writes text to p, lets its change time settle and maps it
// for a change, released at cleanup.
func mapSettled(t *testing.T, p string, text []byte) (*Locked, []byte) {
	t.Helper()
	write(t, p, string(text), 0o644)
	ageFile(t, p)
	lf, data, release := lockAndMap(t, p)
	t.Cleanup(release)
	if lf.mapped == nil {
		t.Fatal("not mapped")
	}
	return lf, data
}
