// Package rpcclient is a small JSON-RPC client for tests that drive a
// runtime through any carrier (the core itself, the in-process connection,
// `shellport serve`): it sends requests without waiting, so tests can
// pipeline them, and collects replies by id and notifications in order.
//
// It also counts processes by an environment token, the way the lifecycle
// tests prove that nothing a session started outlives it.
package rpcclient

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit/transcript"
)

// Wait bounds every wait for a reply. It guards against a hang; it is never
// a speed assertion.
const Wait = 60 * time.Second

// Client sends requests with numbered ids and collects what comes back.
type Client struct {
	t *testing.T
	c transcript.Carrier

	mu      sync.Mutex
	next    int
	replies map[string]Reply
	dups    []string
	notes   []Notice
	outputs []Output
	seq     int            // messages read so far
	replied map[string]int // the seq of each reply, for order checks
}

// Output is one tools/output notification (a piece of a call's live
// output), with Seq, its place among every message read.
type Output struct {
	ID      json.RawMessage `json:"id"`
	CallID  string          `json:"callId"`
	Session string          `json:"session"`
	Text    string          `json:"text"`
	Dropped int64           `json:"dropped"`
	Seq     int             `json:"-"`
}

// Reply is one response.
type Reply struct {
	Raw    []byte
	Result json.RawMessage
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

// Notice is one session/notice notification.
type Notice struct {
	Session string `json:"session"`
	Text    string `json:"text"`
}

// New returns a client over c.
func New(t *testing.T, c transcript.Carrier) *Client {
	return &Client{t: t, c: c, replies: map[string]Reply{}, replied: map[string]int{}}
}

// Send sends a request and returns its id (as JSON text) without waiting.
func (c *Client) Send(method string, params any) string {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := strconv.Itoa(c.next)
	c.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if err != nil {
		c.t.Fatalf("encode %s: %v", method, err)
	}
	if err := c.c.Send(msg); err != nil {
		c.t.Fatalf("send %s: %v", method, err)
	}
	return id
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err := c.c.Send(msg); err != nil {
		c.t.Fatalf("send %s: %v", method, err)
	}
}

// Call sends a request and waits for its reply.
func (c *Client) Call(method string, params any) Reply {
	c.t.Helper()
	return c.Wait(c.Send(method, params))
}

// Wait returns the reply to id, reading until it arrives.
func (c *Client) Wait(id string) Reply {
	c.t.Helper()
	deadline := time.Now().Add(Wait)
	for {
		c.mu.Lock()
		r, ok := c.replies[id]
		c.mu.Unlock()
		if ok {
			return r
		}
		left := time.Until(deadline)
		if left <= 0 {
			c.t.Fatalf("no reply to request %s within %s", id, Wait)
		}
		if !c.read(left) {
			c.t.Fatalf("the carrier closed before the reply to request %s", id)
		}
	}
}

// read takes one message off the carrier; false once it is closed.
func (c *Client) read(timeout time.Duration) bool {
	msg, err := c.c.Recv(timeout)
	if err != nil {
		return false
	}
	if msg == nil {
		return true
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(msg, &probe); err != nil {
		c.t.Errorf("the runtime sent invalid JSON: %q", msg)
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	if probe.Method != "" {
		var n Notice
		if probe.Method == "session/notice" && json.Unmarshal(probe.Params, &n) == nil {
			c.notes = append(c.notes, n)
		}
		var o Output
		if probe.Method == "tools/output" && json.Unmarshal(probe.Params, &o) == nil {
			o.Seq = c.seq
			c.outputs = append(c.outputs, o)
		}
		return true
	}
	var r Reply
	_ = json.Unmarshal(msg, &r)
	r.Raw = msg
	id := string(probe.ID)
	if _, dup := c.replies[id]; dup {
		c.dups = append(c.dups, id)
		c.t.Errorf("request %s was answered twice: %s", id, clip(msg))
	}
	c.replies[id] = r
	c.replied[id] = c.seq
	return true
}

// Outputs returns the tools/output pieces of the request with id (as JSON
// text) received so far, in order, and the seq of its reply (0 before it).
func (c *Client) Outputs(id string) ([]Output, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Output
	for _, o := range c.outputs {
		if string(o.ID) == id {
			out = append(out, o)
		}
	}
	return out, c.replied[id]
}

// Drain reads whatever arrives within d (notifications sent after a
// reply, which a test wants to prove never come).
func (c *Client) Drain(d time.Duration) {
	deadline := time.Now().Add(d)
	for left := time.Until(deadline); left > 0; left = time.Until(deadline) {
		if !c.read(left) {
			return
		}
	}
}

// Notices returns the notices received so far.
func (c *Client) Notices() []Notice {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Notice(nil), c.notes...)
}

// Text returns the text of a tools/call result, failing the test on an
// error reply.
func (r Reply) Text(t *testing.T) string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("want a result, got error %d: %s", r.Error.Code, r.Error.Message)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("not a tools/call result: %s", clip(r.Raw))
	}
	return res.Content[0].Text
}

// Code returns the error code of the reply, or 0 for a result.
func (r Reply) Code() int {
	if r.Error == nil {
		return 0
	}
	return r.Error.Code
}

// Message returns the error message of the reply, or "".
func (r Reply) Message() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Message
}

// Token returns a random marker to put in a session's environment, so
// CountProcs can find every process that session started.
func Token() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "tok" + hex.EncodeToString(b)
}

// CountProcs counts the live processes whose environment holds token
// (zombies count as dead). Processes that change their own environment
// after exec still show the environment they started with. It skips the
// test where /proc is missing.
func CountProcs(t *testing.T, token string) int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(dirs) == 0 {
		t.Skipf("no /proc on this platform: cannot count processes")
	}
	n := 0
	for _, dir := range dirs {
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !bytes.Contains(env, []byte(token)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			continue
		}
		n++
	}
	return n
}

// Eventually polls cond until it holds, failing after a generous bound.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func clip(b []byte) string {
	if len(b) > 400 {
		return fmt.Sprintf("%s… (%d bytes)", b[:400], len(b))
	}
	return string(b)
}
