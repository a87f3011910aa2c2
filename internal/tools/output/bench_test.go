package output

import (
	"bytes"
	"testing"
)

// BenchmarkCapture measures the core on a stream that far outgrows the
// budget (the cost per byte a command's output pays), without and with an
// observer: with none, observing costs nothing.
func BenchmarkCapture(b *testing.B) {
	chunk := bytes.Repeat([]byte("line of plain ascii output, as most commands print\n"), 1300) // ~64 KiB
	for _, observe := range []bool{false, true} {
		name := "unobserved"
		var seen int
		opts := Options{MaxChars: 30000, SpillDir: b.TempDir()}
		if observe {
			name = "observed"
			opts.Observe = func(p []byte) { seen += len(p) }
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(chunk)) * 64)
			for b.Loop() {
				c := NewCapture(opts)
				for range 64 {
					_, _ = c.Write(chunk)
				}
				Finish(opts.MaxChars, Section{Capture: c}).Remove()
			}
		})
	}
}
