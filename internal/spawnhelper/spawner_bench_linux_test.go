//go:build linux

package spawnhelper

import (
	"fmt"
	"os"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
)

// BenchmarkSpareWithDescriptors makes a spare and ends it, the helper
// exec'd from this process or forked by the spawner, while this process
// holds more and more descriptors: a runtime with 2,048 live sessions
// holds about 10,000 (issue 16). An exec's cost grows with them (the
// kernel copies the table and closes every close-on-exec entry); the
// spawner's fork does not, since the spawner holds five.
func BenchmarkSpareWithDescriptors(b *testing.B) {
	helper := testkit.SpawnHelper(b)
	var held []*os.File
	defer func() {
		for _, f := range held {
			_ = f.Close()
		}
	}()
	for _, extra := range []int{0, 2000, 10000} {
		for len(held) < extra {
			f, err := os.Open(os.DevNull)
			if err != nil {
				b.Skipf("hold %d descriptors: %v", extra, err)
			}
			held = append(held, f)
		}
		b.Run(fmt.Sprintf("held=%d/exec", extra), func(b *testing.B) {
			for b.Loop() {
				sp, err := startSpare(helper)
				if err != nil {
					b.Fatal(err)
				}
				sp.discard()
			}
		})
		b.Run(fmt.Sprintf("held=%d/spawner", extra), func(b *testing.B) {
			s, err := startSpawner(helper)
			if err != nil {
				b.Fatal(err)
			}
			defer s.stop()
			for b.Loop() {
				sp, err := s.spare()
				if err != nil {
					b.Fatal(err)
				}
				sp.discard()
			}
		})
	}
}
