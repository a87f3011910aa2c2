package pty

import (
	"context"
	"io"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
)

// benchStart starts bash on a terminal, reads to EOF, waits and closes: a
// persistent shell's start and teardown without the driver.
func benchStart(b *testing.B, helper string) {
	for b.Loop() {
		p, err := Start(context.Background(), Options{Path: "bash", Args: []string{"--noprofile", "--norc", "-c", "true"}, SpawnHelper: helper})
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, p)
		if st, err := p.Wait(context.Background()); err != nil || st.Code != 0 {
			b.Fatalf("%+v %v", st, err)
		}
		_ = p.Close()
	}
}

// BenchmarkStartDirect is a terminal program started by Go itself.
func BenchmarkStartDirect(b *testing.B) { benchStart(b, "") }

// BenchmarkStartWithHelper is the same through shellport-spawn-helper: on
// Linux a supervisor, on macOS the exec shim.
func BenchmarkStartWithHelper(b *testing.B) { benchStart(b, testkit.SpawnHelper(b)) }
