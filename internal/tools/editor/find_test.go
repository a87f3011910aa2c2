package editor

import (
	"math/rand/v2"
	"testing"
)

// The rare-byte search finds exactly what a naive scan finds, overlapping
// matches included, also when the "rare" byte is common in the file (the
// fallback path).
func TestFindAllMatchesNaive(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 5))
	for _, alphabet := range []string{"ab", "ab1", "xyz_\n", "aaaaaaaab", "e t\n{}"} {
		for range 300 {
			data := make([]byte, rng.IntN(3000))
			for i := range data {
				data[i] = alphabet[rng.IntN(len(alphabet))]
			}
			pat := make([]byte, 1+rng.IntN(6))
			for i := range pat {
				pat[i] = alphabet[rng.IntN(len(alphabet))]
			}
			whole := rng.IntN(2) == 0
			count, starts := findAll(data, pat, 1<<30, whole)
			if want := naiveCount(data, pat, whole); count != want {
				t.Fatalf("findAll(%q, whole %v) in %d bytes = %d, naive %d", pat, whole, len(data), count, want)
			}
			for k, s := range starts {
				if string(data[s:s+len(pat)]) != string(pat) || (k > 0 && s <= starts[k-1]) {
					t.Fatalf("bad start %d for %q", s, pat)
				}
			}
		}
	}
}

// Issue 16: the Horspool search, taken for a long pattern of bytes that
// are all common in the file, finds exactly what a naive scan finds,
// overlapping matches and the fallback for patterns that shift little
// included.
func TestFindAllHorspoolMatchesNaive(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 7))
	for _, alphabet := range []string{"ab", "ab1", "xyz_\n", "aaaaaaaab", "e t\n{}", "abcdefghij(),= \n"} {
		for range 200 {
			data := make([]byte, 200+rng.IntN(6000))
			for i := range data {
				data[i] = alphabet[rng.IntN(len(alphabet))]
			}
			var pat []byte
			if rng.IntN(2) == 0 {
				at := rng.IntN(len(data) - 40)
				pat = append(pat, data[at:at+horspoolMin+rng.IntN(24)]...) // occurs at least once
			} else {
				pat = make([]byte, horspoolMin+rng.IntN(24))
				for i := range pat {
					pat[i] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			if f := newFinder(pat, data); f.skip == nil {
				continue // a rare byte after all: TestFindAllMatchesNaive's case
			}
			whole := rng.IntN(2) == 0
			count, starts := findAll(data, pat, 1<<30, whole)
			if want := naiveCount(data, pat, whole); count != want {
				t.Fatalf("findAll(%q, whole %v) in %d bytes = %d, naive %d", pat, whole, len(data), count, want)
			}
			for k, s := range starts {
				if string(data[s:s+len(pat)]) != string(pat) || (k > 0 && s <= starts[k-1]) {
					t.Fatalf("bad start %d for %q", s, pat)
				}
			}
		}
	}
}
