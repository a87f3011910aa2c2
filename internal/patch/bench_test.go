package patch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFileSize matches the editor's benchmark file (issue 5's bar: 35 MB).
const benchFileSize = 35 << 20

// benchText returns ~35 MB of tab-indented C-like lines with a unique
// marker line at about 90 percent.
func benchText() string {
	var sb strings.Builder
	sb.Grow(benchFileSize + 4096)
	for n := 1; sb.Len() < benchFileSize; n++ {
		if n == 440000 {
			sb.WriteString("\tint marker_alpha = 1; /* the line the benchmark edits */\n")
			continue
		}
		fmt.Fprintf(&sb, "\tif (value_%d > limit) { counter += compute(value_%d, %d); }\n", n, n, n%97)
	}
	return sb.String()
}

func benchPatch(from, to string) *Patch {
	line := func(n int) string {
		return fmt.Sprintf(" \tif (value_%d > limit) { counter += compute(value_%d, %d); }\n", n, n, n%97)
	}
	p, err := Parse("*** Begin Patch\n*** Update File: big.c\n@@\n" + line(439999) +
		"-\tint " + from + "; /* the line the benchmark edits */\n+\tint " + to + "; /* the line the benchmark edits */\n" + line(440001) + "*** End Patch\n")
	if err != nil {
		panic(err)
	}
	return p
}

// BenchmarkUpdateText35MB places one exact three-line hunk near the end of
// a 35 MB file and builds the new content, in memory: line index, a scan
// for every place the block matches, one copy.
func BenchmarkUpdateText35MB(b *testing.B) {
	data := []byte(benchText())
	hs := benchPatch("marker_alpha = 1", "marker_beta = 2").Files[0].Hunks
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := UpdateText("big.c", data, hs, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateTextLoose35MB is the worst case of placement: the hunk
// matches only at the fourth level, so the file is scanned four times.
func BenchmarkUpdateTextLoose35MB(b *testing.B) {
	data := []byte(benchText())
	p, err := Parse("*** Begin Patch\n*** Update File: big.c\n@@\n-int marker_alpha = 1; /* the line the benchmark edits */\n+int marker_beta = 2; /* the line the benchmark edits */\n*** End Patch\n")
	if err != nil {
		b.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "/* the line", "/*\u00a0the line", 1))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, info, err := UpdateText("big.c", data, p.Files[0].Hunks, false)
		if err != nil || info[0].Match != IgnorePunctuation {
			b.Fatal(err, info)
		}
	}
}

// BenchmarkApply35MB applies the hunk to the file on disk (and back, on
// alternate iterations): resolve, lock, read, text checks, placement,
// unchanged-on-disk check, atomic write with fsync.
func BenchmarkApply35MB(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.c"), []byte(benchText()), 0o644); err != nil {
		b.Fatal(err)
	}
	ps := [2]*Patch{benchPatch("marker_alpha = 1", "marker_beta = 2"), benchPatch("marker_beta = 2", "marker_alpha = 1")}
	b.SetBytes(benchFileSize)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Apply(context.Background(), ps[i%2], Options{Cwd: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplySmall is the fixed cost of one patch of one small file,
// which is what most calls are.
func BenchmarkApplySmall(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 60 {
		fmt.Fprintf(&sb, "line %d of a small source file\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	mk := func(from, to string) *Patch {
		p, err := Parse("*** Begin Patch\n*** Update File: small.txt\n@@\n line 29 of a small source file\n-" + from + "\n+" + to + "\n line 31 of a small source file\n*** End Patch\n")
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	ps := [2]*Patch{mk("line 30 of a small source file", "line thirty"), mk("line thirty", "line 30 of a small source file")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Apply(context.Background(), ps[i%2], Options{Cwd: dir}); err != nil {
			b.Fatal(err)
		}
	}
}
