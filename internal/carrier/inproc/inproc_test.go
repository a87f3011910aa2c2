package inproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/testkit/lifecycle"
	"github.com/shellport/shellport/internal/testkit/livecheck"
	"github.com/shellport/shellport/internal/testkit/transcript"
)

func open(t *testing.T) *Conn {
	t.Helper()
	c := OpenOptions(core.Options{SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestTranscripts plays the shared JSON-RPC transcripts through the path the
// C ABI uses (the capi package is a thin cgo shell over this).
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/rpc/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			steps, err := transcript.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := transcript.Run(open(t), steps, 20*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCallGetsOwnReply checks that a blocking Call and a reader draining
// Recv can share one connection: each reply goes to whoever waits for it.
func TestCallGetsOwnReply(t *testing.T) {
	c := open(t)
	if err := c.Send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"config":{"testTools":true}}}`)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"_echo","arguments":{"n":%d}}}`, 100+i, i)
			reply, err := c.Call([]byte(req))
			if err != nil {
				t.Error(err)
				return
			}
			if !strings.Contains(string(reply), fmt.Sprintf(`\"n\":%d`, i)) {
				t.Errorf("call %d got someone else's reply: %s", i, reply)
			}
		}(i)
	}
	wg.Wait()
	// Only the initialize reply went to the Recv queue.
	msg, err := c.Recv(5 * time.Second)
	if err != nil || !strings.Contains(string(msg), `"id":"init"`) {
		t.Fatalf("recv: %s %v", msg, err)
	}
	if msg, _ := c.Recv(50 * time.Millisecond); msg != nil {
		t.Fatalf("a Call reply leaked into Recv: %s", msg)
	}
}

func TestTooLargeMessageKeepsServing(t *testing.T) {
	c := open(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"_echo","arguments":{"s":"` + strings.Repeat("x", 10<<20) + `"}}}`
	reply, err := c.Call([]byte(big))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID    int
		Error struct{ Code int } `json:"error"`
	}
	if json.Unmarshal(reply, &resp) != nil || resp.Error.Code != -32004 || resp.ID != 1 {
		t.Fatalf("want message-too-large error for id 1, got %.300s", reply)
	}
	// Through Send the reply goes to the Recv queue, with the id read from
	// the head of the message.
	if err := c.Send([]byte(big)); err != nil {
		t.Fatal(err)
	}
	msg, err := c.Recv(5 * time.Second)
	want := fmt.Sprintf("message too large: %d bytes", len(big))
	if err != nil || !strings.Contains(string(msg), `"id":1`) || !strings.Contains(string(msg), "-32004") || !strings.Contains(string(msg), want) {
		t.Fatalf("want message-too-large error, got %.300s %v", msg, err)
	}
	reply, err = c.Call([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if err != nil || !strings.Contains(string(reply), `"tools"`) {
		t.Fatalf("runtime stopped serving: %.300s %v", reply, err)
	}
}

func TestClosedConnRefuses(t *testing.T) {
	c := open(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); err != ErrClosed {
		t.Fatalf("send after close: %v", err)
	}
	if _, err := c.Recv(time.Second); err != ErrClosed {
		t.Fatalf("recv after close: %v", err)
	}
}

// TestSessionLifecycle runs the issue-10 session-lifetime scenarios through
// the path the C ABI uses.
func TestSessionLifecycle(t *testing.T) {
	lifecycle.RunAll(t, func(t *testing.T) transcript.Carrier { return open(t) })
}

// TestLiveOutput runs the issue-17 live-output scenarios through the path
// the C ABI uses, in both bash profiles.
func TestLiveOutput(t *testing.T) {
	livecheck.RunAll(t, func(t *testing.T) transcript.Carrier { return open(t) })
}

// TestStartWaitTickets: a started request's reply goes to its ticket only,
// with the count of messages queued for Recv before it; a forgotten or
// spent ticket gives nothing; Close wakes a waiter (issue 16).
// onBothWaits runs a test of Wait with a connection whose waiters park in
// the Go scheduler and with one whose waiters park in the kernel (the C
// ABI's, ParkWaitersInKernel), each from a fresh connection with the test
// tools.
func onBothWaits(t *testing.T, test func(t *testing.T, c *Conn)) {
	for _, kernel := range []bool{false, true} {
		t.Run(fmt.Sprintf("park-in-kernel=%v", kernel), func(t *testing.T) {
			c := OpenOptions(core.Options{Config: core.Config{TestTools: true}, SpawnHelper: testkit.SpawnHelper(t)})
			defer c.Close()
			if kernel {
				c.ParkWaitersInKernel()
			}
			test(t, c)
		})
	}
}

func TestStartWaitTickets(t *testing.T) { onBothWaits(t, testStartWaitTickets) }

func testStartWaitTickets(t *testing.T, c *Conn) {
	if err := c.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","id":"s"}}`)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id, err := c.Start([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"s","name":"_notify","arguments":{"text":"n%d"}}}`, 100+i, i)))
			if err != nil || id <= 0 {
				t.Errorf("start: %d %v", id, err)
				return
			}
			reply, queued, err := c.Wait(id, 20*time.Second) // a hang guard
			if err != nil || !strings.Contains(string(reply), fmt.Sprintf(`"id":%d,`, 100+i)) {
				t.Errorf("call %d got %s, %v", i, reply, err)
			}
			if queued < 2 { // the session/new reply and this call's own notice at least
				t.Errorf("call %d: %d messages queued before its reply, want its notice among them", i, queued)
			}
			if r, _, err := c.Wait(id, 0); r != nil || err != ErrUnknownTicket {
				t.Errorf("a spent ticket gave %s, %v", r, err)
			}
		}(i)
	}
	wg.Wait()
	notices := 0
	for {
		msg, err := c.Recv(100 * time.Millisecond)
		if err != nil || msg == nil {
			break
		}
		if strings.Contains(string(msg), "session/notice") {
			notices++
		} else if !strings.Contains(string(msg), `"id":1,`) {
			t.Fatalf("a ticket's reply leaked into Recv: %s", msg)
		}
	}
	if notices != 16 {
		t.Fatalf("%d notices through Recv, want 16", notices)
	}
	if id, err := c.Start([]byte(`{"jsonrpc":"2.0","method":"$/ping"}`)); id != 0 || err != nil {
		t.Fatalf("a notification got ticket %d, %v", id, err)
	}
	id, _ := c.Start([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"session":"s","name":"_sleep","arguments":{"ms":60000}}}`))
	if r, _, err := c.Wait(id, time.Millisecond); r != nil || err != nil {
		t.Fatalf("wait before the reply: %s, %v", r, err)
	}
	c.Forget(id)
	if _, _, err := c.Wait(id, 0); err != ErrUnknownTicket {
		t.Fatalf("a forgotten ticket: %v", err)
	}
	id, _ = c.Start([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"session":"s","name":"_sleep","arguments":{"ms":60000}}}`))
	done := make(chan error, 1)
	go func() {
		reply, _, err := c.Wait(id, 30*time.Second) // a hang guard
		if err == nil && reply == nil {
			err = errors.New("Wait timed out")
		}
		done <- err
	}()
	_ = c.Close()
	// The waiter gets the call's reply (the close cancelled the call) or
	// ErrClosed, whichever it sees first; never its timeout.
	if err := <-done; err != nil && err != ErrClosed {
		t.Fatalf("a waiter woken by Close: %v", err)
	}
	if _, err := c.Start([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)); err != ErrClosed {
		t.Fatalf("start after close: %v", err)
	}
}

// A call to a quick tool (the editor; _echo here) runs in Start on the
// caller's goroutine (issue 16): its reply is there when Start returns,
// and it still goes only to its ticket. A call that is not quick (_sleep)
// is left to the runtime's workers, so Start returns before it ends.
func TestStartRunsQuickCallsOnTheCaller(t *testing.T) {
	onBothWaits(t, testStartRunsQuickCallsOnTheCaller)
}

func testStartRunsQuickCallsOnTheCaller(t *testing.T, c *Conn) {
	if _, err := c.Call([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","id":"s"}}`)); err != nil {
		t.Fatal(err)
	}
	id, err := c.Start([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"session":"s","name":"_echo","arguments":{"x":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	reply, _, err := c.Wait(id, 0)
	if err != nil || !strings.Contains(string(reply), `"id":2,`) {
		t.Fatalf("the quick call's reply was not there when Start returned: %s, %v", reply, err)
	}
	id, _ = c.Start([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"session":"s","name":"_sleep","arguments":{"ms":60000}}}`))
	if r, _, err := c.Wait(id, 0); r != nil || err != nil {
		t.Fatalf("a call that is not quick ran in Start: %s, %v", r, err)
	}
	if err := c.Send([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`)); err != nil {
		t.Fatal(err)
	}
	reply, _, err = c.Wait(id, 20*time.Second) // a hang guard
	if err != nil || !strings.Contains(string(reply), "-32800") {
		t.Fatalf("cancelled sleep: %s, %v", reply, err)
	}
	if msg, _ := c.Recv(0); msg != nil {
		t.Fatalf("a ticket's reply leaked into Recv: %s", msg)
	}
}

// TestStartWait is Start and Wait in one step (shellport_start_wait, issue
// 16): a quick call comes back with its reply and its ticket spent, a slow
// one with a ticket to go on waiting with, a notification with none.
func TestStartWait(t *testing.T) { onBothWaits(t, testStartWait) }

func testStartWait(t *testing.T, c *Conn) {
	if _, err := c.Call([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","id":"s"}}`)); err != nil {
		t.Fatal(err)
	}
	id, reply, _, err := c.StartWait([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"session":"s","name":"_echo","arguments":{"x":1}}}`), 0)
	if err != nil || id <= 0 || !strings.Contains(string(reply), `"id":2,`) {
		t.Fatalf("StartWait of a quick call: ticket %d, %s, %v", id, reply, err)
	}
	if _, _, err := c.Wait(id, 0); !errors.Is(err, ErrUnknownTicket) {
		t.Fatalf("the ticket of a collected reply is still known: %v", err)
	}
	id, reply, _, err = c.StartWait([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"session":"s","name":"_sleep","arguments":{"ms":60000}}}`), time.Millisecond)
	if err != nil || id <= 0 || reply != nil {
		t.Fatalf("StartWait of a slow call: ticket %d, %s, %v", id, reply, err)
	}
	if err := c.Send([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`)); err != nil {
		t.Fatal(err)
	}
	reply, _, err = c.Wait(id, 20*time.Second) // a hang guard
	if err != nil || !strings.Contains(string(reply), "-32800") {
		t.Fatalf("cancelled sleep: %s, %v", reply, err)
	}
	if id, reply, _, err = c.StartWait([]byte(`{"jsonrpc":"2.0","method":"$/ping"}`), time.Millisecond); id != 0 || reply != nil || err != nil {
		t.Fatalf("StartWait of a notification: ticket %d, %s, %v", id, reply, err)
	}
	if msg, _ := c.Recv(0); msg != nil {
		t.Fatalf("a ticket's reply leaked into Recv: %s", msg)
	}
	_ = c.Close()
	if id, _, _, err = c.StartWait([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`), 0); id != 0 || !errors.Is(err, ErrClosed) {
		t.Fatalf("StartWait after close: ticket %d, %v", id, err)
	}
}
