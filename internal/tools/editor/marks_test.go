package editor

import (
	"math/rand/v2"
	"testing"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Issue 16: the one-pass text check of a large file (checkMarking) refuses
// exactly what fileio.CheckText refuses, with the same message, whether a
// NUL byte or bad UTF-8 sits inside a piece or across two; and its line
// marks give every offset the line lineOf gives.
func TestCheckMarkingMatchesCheckText(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 16))
	runes := []string{"a", "\n", "\t", "é", "€", "𝄞", "\r\n"}
	for round := range 60 {
		var b []byte
		for len(b) < 3*checkPiece+rng.IntN(checkPiece) {
			b = append(b, runes[rng.IntN(len(runes))]...)
		}
		switch round % 4 {
		case 1: // one bad byte: a NUL, a stray continuation, a cut or an overlong lead
			at := rng.IntN(len(b))
			if rng.IntN(3) == 0 {
				at = checkPiece - 2 + rng.IntN(4) // near the first piece's end
			}
			b[at] = []byte{0, 0x80, 0xE2, 0xC0, 0xFF}[rng.IntN(5)]
		case 2: // a run of continuation bytes across a piece's end
			for i := checkPiece - 3; i < checkPiece+3; i++ {
				b[i] = 0x80
			}
		}
		want := fileio.CheckText("f", "bash", b)
		m := newLineMarks()
		got := checkMarking(nil, "f", "bash", b, m)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Fatalf("round %d: checkMarking = %v, CheckText = %v", round, got, want)
		}
		if got != nil {
			continue
		}
		for range 50 {
			off := rng.IntN(len(b) + 1)
			if m.lineOf(b, off) != lineOf(b, off) {
				t.Fatalf("round %d: line of offset %d = %d, lineOf %d", round, off, m.lineOf(b, off), lineOf(b, off))
			}
		}
		for _, off := range append([]int{0, len(b)}, m.ends...) {
			if m.lineOf(b, off) != lineOf(b, off) {
				t.Fatalf("round %d: line of offset %d (a piece's end) = %d, lineOf %d", round, off, m.lineOf(b, off), lineOf(b, off))
			}
		}
	}
}
