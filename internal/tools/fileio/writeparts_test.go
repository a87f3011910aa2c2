package fileio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestWritePartsWritesEveryByteAndStartsWholeChunks(t *testing.T) {
	const c = writebackChunk
	cases := []struct {
		name  string
		sizes []int
	}{
		{"empty", nil},
		{"empty parts", []int{0, 0, 0}},
		{"small", []int{10, 3, 7}},
		{"one chunk exactly", []int{c}},
		{"a chunk and a byte", []int{c + 1}},
		{"parts across chunks", []int{c - 5, 11, 2*c + 3, 0, c - 9}},
		{"the edit's shape", []int{3*c + 123, 40, c/2 + 7}},
	}
	dir := t.TempDir()
	var seen [][2]int64
	startRange = func(f *os.File, off, n int64) {
		seen = append(seen, [2]int64{off, n})
		startWriteback(f, off, n)
	}
	defer func() { startRange = startWriteback }()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			var parts [][]byte
			for j, n := range tc.sizes {
				p := bytes.Repeat([]byte{byte('a' + (i+j)%26)}, n)
				for k := 0; k < n; k += 4093 {
					p[k] = byte(k) // so a chunk written twice or out of place shows
				}
				parts = append(parts, p)
			}
			name := filepath.Join(dir, tc.name)
			f, err := os.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := writeParts(f, parts...); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Join(parts, nil)
			if !bytes.Equal(got, want) {
				t.Fatalf("file holds %d bytes, not the %d written", len(got), len(want))
			}
			// Every whole chunk's writeback started, in order, each once.
			if len(seen) != len(want)/c {
				t.Fatalf("writeback started for %d ranges, want %d: %v", len(seen), len(want)/c, seen)
			}
			for k, r := range seen {
				if r != [2]int64{int64(k) * c, c} {
					t.Fatalf("range %d is %v, want [%d %d]", k, r, k*c, c)
				}
			}
		})
	}
}

func TestWritePartsReportsAFailedWrite(t *testing.T) {
	f, err := os.Open(os.DevNull) // read-only: every write fails
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeParts(f, []byte("x")); err == nil {
		t.Fatal("a write to a read-only file succeeded")
	}
}
