package inproc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// BenchmarkBashLive is a bash call's cost on the C ABI's path without and
// with live output (issue 17), in both profiles: `true` shows what asking
// for a stream costs, `seq 1 20000` what streaming 108,894 bytes does. A
// reader drains the notifications, as a client would.
func BenchmarkBashLive(b *testing.B) {
	for _, profile := range []string{"oneshot", "persistent"} {
		c := OpenOptions(core.Options{Config: core.Config{Profile: profile}, SpawnHelper: testkit.SpawnHelper(b)})
		go func() {
			for {
				if _, err := c.Recv(time.Hour); err != nil {
					return
				}
			}
		}()
		if _, err := c.Call([]byte(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/","id":"a"}}`)); err != nil {
			b.Fatal(err)
		}
		for _, command := range []string{"true", "seq 1 20000"} {
			for _, stream := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/stream=%v", profile, strings.Fields(command)[0], stream)
				b.Run(name, func(b *testing.B) {
					args := fmt.Sprintf(`{"command":%q,"description":"bench"}`, command)
					if profile == "persistent" {
						args = fmt.Sprintf(`{"command":%q}`, command)
					}
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						i++
						live := ""
						if stream {
							live = `"stream":true,`
						}
						msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"a","name":"bash",%s"arguments":%s}}`, i, live, args)
						reply, err := c.Call([]byte(msg))
						if err != nil || !bytes.Contains(reply, []byte(`"isError":false`)) {
							b.Fatalf("%v %s", err, reply)
						}
					}
				})
			}
		}
		_ = c.Close()
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

// openViewSession opens a connection with session "a" in a directory
// holding tiny.txt, a 2-byte file; the connection closes with b.
func openViewSession(b *testing.B) (*Conn, string) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tiny.txt"), []byte("a\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	c := OpenOptions(core.Options{SpawnHelper: testkit.SpawnHelper(b)})
	b.Cleanup(func() { c.Close() })
	if _, err := c.Call([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":%q,"id":"a"}}`, dir))); err != nil {
		b.Fatal(err)
	}
	return c, dir
}

// BenchmarkStartWaitView is the no-op case of docs/BENCHMARKS.md (an editor
// view of a 2-byte file) on the path a blocking Python call takes over the
// C ABI: since issue 16 the editor's call runs inside Start, on the
// caller's goroutine.
func BenchmarkStartWaitView(b *testing.B) {
	c, dir := openViewSession(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		t, err := c.Start([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"a","name":"str_replace_editor","arguments":{"command":"view","path":%q}}}`, i, filepath.Join(dir, "tiny.txt"))))
		if err != nil {
			b.Fatal(err)
		}
		for {
			reply, _, err := c.Wait(t, 250*time.Millisecond)
			if err != nil {
				b.Fatal(err)
			}
			if reply != nil {
				if !bytes.Contains(reply, []byte(`"isError":false`)) {
					b.Fatalf("%s", reply)
				}
				break
			}
		}
	}
}

// BenchmarkStartWaitViewOneStep is BenchmarkStartWaitView through
// StartWait, the one crossing a blocking Python call makes since
// shellport_start_wait (issue 16).
func BenchmarkStartWaitViewOneStep(b *testing.B) {
	c, dir := openViewSession(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		t, reply, _, err := c.StartWait([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"a","name":"str_replace_editor","arguments":{"command":"view","path":%q}}}`, i, filepath.Join(dir, "tiny.txt"))), 250*time.Millisecond)
		for err == nil && reply == nil {
			reply, _, err = c.Wait(t, 250*time.Millisecond)
		}
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(reply, []byte(`"isError":false`)) {
			b.Fatalf("%s", reply)
		}
	}
}

// BenchmarkRecvMany is the reader's side of a burst of notifications: 64
// queued messages taken one Recv at a time or in one RecvMany (issue 16).
func BenchmarkRecvMany(b *testing.B) {
	c := OpenOptions(core.Options{Config: core.Config{TestTools: true}, SpawnHelper: testkit.SpawnHelper(b)})
	defer c.Close()
	msg := []byte(`{"jsonrpc":"2.0","method":"session/notice","params":{"session":"a","text":"x"}}`)
	for _, many := range []bool{false, true} {
		b.Run(fmt.Sprintf("many=%v", many), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for range 64 {
					_ = c.enqueue(msg)
				}
				for got := 0; got < 64; {
					if many {
						msgs, _ := c.RecvMany(0, 256)
						got += len(msgs)
					} else {
						if m, _ := c.Recv(0); m != nil {
							got++
						}
					}
				}
			}
		})
	}
}
