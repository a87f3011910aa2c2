package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/testkit/lifecycle"
	"github.com/shellport/shellport/internal/testkit/livecheck"
	"github.com/shellport/shellport/internal/testkit/transcript"
)

// inlineCarrier delivers as the C ABI's shellport_start does
// (Runtime.DeliverInline, then the job's first half on the sending
// goroutine), with every message, replies included, queued for Recv.
type inlineCarrier struct {
	coreCarrier
	begun int // deliveries whose work the sender ran itself
}

func openInline(t *testing.T) transcript.Carrier { return openInlineFor(t) }

func openInlineFor(t testing.TB) *inlineCarrier {
	c := &inlineCarrier{coreCarrier: coreCarrier{ready: make(chan struct{}, 1)}}
	c.rt = core.New(core.Options{Send: c.send, SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = c.rt.Close() })
	return c
}

func (c *inlineCarrier) Send(msg []byte) error {
	if _, run := c.rt.DeliverInline(msg, c.send); run != nil {
		c.begun++
		run()
	}
	return nil
}

// The session scenarios (close, cancel, ordering, processes) and the live
// output ones, with persistent calls split in two: begun by the sender,
// finished where the shell's end frame is read.
func TestSessionLifecycleInline(t *testing.T) { lifecycle.RunAll(t, openInline) }

func TestLiveOutputInline(t *testing.T) { livecheck.RunAll(t, livecheck.Open(openInline)) }

// A persistent call to a shell that is up starts on the delivering
// goroutine (issue 16): DeliverInline hands it back to run, and running it
// sends the command without waiting for it; the reply comes from the
// goroutine that reads the end frame. Before, such a call went to a pooled
// worker and DeliverInline returned nothing to run.
func TestPersistentCallStartsOnTheCaller(t *testing.T) {
	c := openInlineFor(t)
	send := func(msg string) { _ = c.Send([]byte(msg)) }
	recv := func(id string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second) // a hang guard
		for time.Now().Before(deadline) {
			msg, _ := c.Recv(time.Second)
			if strings.Contains(string(msg), `"id":`+id+`,`) {
				return string(msg)
			}
		}
		t.Fatalf("no reply to %s", id)
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"config":{"profile":"persistent"}}}`)
	recv("1")
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"id":"s","cwd":"/"}}`)
	recv("2")
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"session":"s","name":"bash","arguments":{"command":"x=1"}}}`)
	recv("3") // the shell starts on a worker: that waits
	before := c.begun
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"session":"s","name":"bash","arguments":{"command":"echo x=$x"}}}`)
	if c.begun != before+1 {
		t.Fatalf("the call to a running shell was not handed back to its sender (%d runs, want %d)", c.begun-before, 1)
	}
	if reply := recv("4"); !strings.Contains(reply, "x=1") {
		t.Fatalf("reply %s", reply)
	}
}
