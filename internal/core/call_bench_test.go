package core

import (
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
)

// BenchmarkToolsCallInSession is the runtime's share of a tools/call in a
// session, around a tool that does nothing (the _echo self-test tool):
// decoding, admission, the job on a pooled worker, the result and the
// reply's encoding (issue 16). One call at a time, as a blocking client
// makes them.
func BenchmarkToolsCallInSession(b *testing.B) {
	replies := make(chan []byte, 1)
	rt := New(Options{Config: Config{TestTools: true}, Send: func(msg []byte) error { replies <- msg; return nil }, SpawnHelper: testkit.SpawnHelper(b)})
	b.Cleanup(func() { _ = rt.Close() })
	call := func(msg string) {
		rt.Deliver([]byte(msg))
		if reply := <-replies; !strings.Contains(string(reply), `"result":`) || strings.Contains(string(reply), `"isError":true`) {
			b.Fatalf("%s: %s", msg, reply)
		}
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	call(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"id":"s","cwd":"` + b.TempDir() + `"}}`)
	msg := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"session":"s","name":"_echo","arguments":{"text":"x"}}}`
	call(msg)
	b.ReportAllocs()
	for b.Loop() {
		call(msg)
	}
}
