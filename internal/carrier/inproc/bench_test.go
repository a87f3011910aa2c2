package inproc

import (
	"fmt"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/testkit"
)

// BenchmarkCallEcho is the runtime's own cost per tool call on the path the
// C ABI uses: decode, dispatch, a trivial tool, result and presentation,
// encode, and the hand-over of the reply.
func BenchmarkCallEcho(b *testing.B) {
	c := OpenOptions(core.Options{Config: core.Config{TestTools: true}, SpawnHelper: testkit.SpawnHelper(b)})
	defer c.Close()
	if _, err := c.Call([]byte(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/","id":"a"}}`)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Call([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"a","name":"_echo","arguments":{}}}`, i+1))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartWaitEcho is BenchmarkCallEcho through Start and Wait, the
// path a blocking Python call takes over the C ABI (issue 16).
func BenchmarkStartWaitEcho(b *testing.B) {
	c := OpenOptions(core.Options{Config: core.Config{TestTools: true}, SpawnHelper: testkit.SpawnHelper(b)})
	defer c.Close()
	if _, err := c.Call([]byte(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/","id":"a"}}`)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, err := c.Start([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"a","name":"_echo","arguments":{}}}`, i+1)))
		if err != nil {
			b.Fatal(err)
		}
		for {
			reply, _, err := c.Wait(t, 250*time.Millisecond)
			if err != nil {
				b.Fatal(err)
			}
			if reply != nil {
				break
			}
		}
	}
}
