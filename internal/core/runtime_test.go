package core

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
)

func TestStrictSchema(t *testing.T) {
	in := `{"type":"object","properties":{
		"command":{"type":"string","enum":["view","create"]},
		"path":{"type":"string"},
		"view_range":{"type":"array","items":{"type":"integer"}},
		"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}},
		"anything":{"description":"no type"}},
		"required":["command","path"]}`
	out, err := strictSchema(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"command":{"type":"string","enum":["view","create"]},` +
		`"path":{"type":"string"},` +
		`"view_range":{"type":["array","null"],"items":{"type":"integer"}},` +
		`"opts":{"type":["object","null"],"properties":{"deep":{"type":["boolean","null"]}},"required":["deep"],"additionalProperties":false},` +
		`"anything":{"anyOf":[{"description":"no type"},{"type":"null"}]}},` +
		`"required":["command","path","view_range","opts","anything"],"additionalProperties":false}`
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	// An optional enum gains null among its values too.
	out, _ = strictSchema(json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["a"]}}}`))
	if !strings.Contains(string(out), `"enum":["a",null]`) {
		t.Fatalf("optional enum: %s", out)
	}
}

// orderTool is a serial tool that records the order its calls run in and
// fails the test if two run at once.
type orderTool struct {
	mu      sync.Mutex
	running bool
	order   []int
	t       *testing.T
}

func (o *orderTool) Name() string                 { return "_order" }
func (o *orderTool) Description() string          { return "records order" }
func (o *orderTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (o *orderTool) SerialPerSession()            {}
func (o *orderTool) Present(c *tools.Call, r *tools.Result) tools.Presentation {
	return tools.Generic("_order", c, r)
}
func (o *orderTool) Call(ctx context.Context, c *tools.Call) (*tools.Result, error) {
	var args struct{ N int }
	_ = json.Unmarshal(c.Arguments, &args)
	o.mu.Lock()
	if o.running {
		o.t.Errorf("call %d overlapped another call of the same session", args.N)
	}
	o.running = true
	o.order = append(o.order, args.N)
	o.mu.Unlock()
	time.Sleep(time.Duration(rand.Intn(3)) * time.Millisecond) // vary the schedule
	o.mu.Lock()
	o.running = false
	o.mu.Unlock()
	return &tools.Result{Text: "ok"}, nil
}

type collector struct {
	mu   sync.Mutex
	msgs map[string]string
	all  []string // every message, in order
	got  chan struct{}
}

func (c *collector) send(msg []byte) error {
	var probe struct{ ID json.RawMessage }
	_ = json.Unmarshal(msg, &probe)
	c.mu.Lock()
	c.msgs[string(probe.ID)] = string(msg)
	c.all = append(c.all, string(msg))
	c.mu.Unlock()
	select {
	case c.got <- struct{}{}:
	default: // a waiter re-checks the map on its next wake-up or timeout
	}
	return nil
}

func (c *collector) wait(t *testing.T, id string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		c.mu.Lock()
		m, ok := c.msgs[id]
		c.mu.Unlock()
		if ok {
			return m
		}
		select {
		case <-c.got:
		case <-deadline:
			t.Fatalf("no reply to %s", id)
		}
	}
}

func TestSerialToolRunsInArrivalOrder(t *testing.T) {
	ot := &orderTool{t: t}
	testOnlyExtraTools = func(tools.Host) []tools.Tool { return []tools.Tool{ot} }
	t.Cleanup(func() { testOnlyExtraTools = nil })

	col := &collector{msgs: map[string]string{}, got: make(chan struct{}, 1000)}
	rt := New(Options{Send: col.send, SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = rt.Close() })
	rt.Deliver([]byte(`{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/","id":"s"}}`))
	const n = 40
	for i := 1; i <= n; i++ {
		rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"s","name":"_order","arguments":{"n":%d}}}`, i, i)))
		if i == 10 {
			// Cancel a queued call: the calls behind it must still wait
			// their turn.
			rt.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":10}}`))
		}
	}
	for i := 1; i <= n; i++ {
		col.wait(t, fmt.Sprint(i))
	}
	ot.mu.Lock()
	defer ot.mu.Unlock()
	last := 0
	for _, got := range ot.order {
		if got <= last {
			t.Fatalf("calls ran out of order: %v", ot.order)
		}
		last = got
	}
	if len(ot.order) < n-1 {
		t.Fatalf("only %d of %d calls ran: %v", len(ot.order), n, ot.order)
	}
}

func TestManySessionsConcurrently(t *testing.T) {
	col := &collector{msgs: map[string]string{}, got: make(chan struct{}, 10000)}
	rt := New(Options{Config: Config{TestTools: true}, Send: col.send, SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = rt.Close() })
	const n = 64
	for i := 0; i < n; i++ {
		rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"new%d","method":"session/new","params":{"cwd":"/","id":"s%d","env":{"WHO":"%d"}}}`, i, i, i)))
	}
	for i := 0; i < n; i++ {
		rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"tools/call","params":{"session":"s%d","name":"_echo","arguments":{}}}`, i, i)))
	}
	for i := 0; i < n; i++ {
		reply := col.wait(t, fmt.Sprintf(`"c%d"`, i))
		if !strings.Contains(reply, fmt.Sprintf(`"session":"s%d"`, i)) || !strings.Contains(reply, fmt.Sprintf(`"WHO":"%d"`, i)) {
			t.Fatalf("session s%d saw another session's state: %s", i, reply)
		}
	}
}

func TestHasNUL(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"a":"x\u0000"}`:    true,
		`{"a":"x\\u0000"}`:   false,
		`{"a":"x\\\u0000"}`:  true,
		`{"a":"\u00000"}`:    true,
		`{"a":"u0000"}`:      false,
		`{"a":"\u0001"}`:     false,
		`{"\u0000":1}`:       true,
		`{"a":"\\\\u0000"}`:  false,
		`{"a":["\u0000"]}`:   true,
		`{"a":"trailing\\"}`: false,
	} {
		if got := hasNUL(json.RawMessage(raw)); got != want {
			t.Errorf("hasNUL(%s) = %v, want %v", raw, got, want)
		}
	}
}
