//go:build unix

package fileio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 16: OpenRegularRead trusts the caller's stat only to pick what to
// open; a path swapped for a FIFO or a directory after that stat is still
// refused, from the open descriptor, in OpenRegular's words and without
// blocking.
func TestOpenRegularReadRefusesASwappedPath(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	write(t, p, "a\nb\n", 0o644)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegularRead(p, p, fi)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	if err != nil || string(data) != "a\nb\n" {
		t.Fatalf("read %q, %v", data, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, _, want := OpenRegular(p, p)
	if _, got := OpenRegularRead(p, p, fi); got == nil || want == nil || got.Error() != want.Error() || !strings.Contains(got.Error(), "named pipe") {
		t.Fatalf("a FIFO swapped in after the stat: got %v, want %v", got, want)
	}

	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, want = OpenRegular(p, p)
	if _, got := OpenRegularRead(p, p, fi); got == nil || !errors.Is(got, ErrIsDir) || got.Error() != want.Error() {
		t.Fatalf("a directory swapped in after the stat: got %v, want %v", got, want)
	}

	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, got := OpenRegularRead(p, p, fi); got == nil || !strings.Contains(got.Error(), "cannot read") {
		t.Fatalf("a path removed after the stat: got %v", got)
	}
	dfi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, got := OpenRegularRead(dir, dir, dfi); got == nil || !errors.Is(got, ErrIsDir) {
		t.Fatalf("a directory by the caller's stat: got %v", got)
	}
}
