package core

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// The self-test tools exist so tests of the carriers (C ABI, stdio, Python)
// can exercise panics, cancellation and notices without depending on a real
// tool. They are mounted only with {"testTools": true}.
//
// newTestTool returns the one named tool (a row of testRows).
func newTestTool(host tools.Host, name string) (tools.Tool, error) {
	for _, t := range newTestTools(host) {
		if t.Name() == name {
			if t.quick {
				return quickTestTool{t}, nil
			}
			return t, nil
		}
	}
	return nil, fmt.Errorf("no test tool %q", name)
}

func newTestTools(host tools.Host) []*testTool {
	return []*testTool{
		&testTool{name: "_echo", desc: "Returns its arguments as text.", quick: true, run: func(_ context.Context, c *tools.Call) (*tools.Result, error) {
			return &tools.Result{Text: string(c.Arguments), Structured: map[string]any{"session": c.Session.ID, "cwd": c.Session.Cwd, "env": c.Session.Env, "callId": c.ID}}, nil
		}},
		&testTool{name: "_sleep", desc: "Sleeps for ms milliseconds or until cancelled.", run: func(ctx context.Context, c *tools.Call) (*tools.Result, error) {
			var args struct {
				Ms int `json:"ms"`
			}
			if err := tools.Decode(c.Arguments, &args); err != nil {
				return tools.Errorf("%v", err), nil
			}
			select {
			case <-time.After(time.Duration(args.Ms) * time.Millisecond):
				return &tools.Result{Text: "slept"}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}},
		&testTool{name: "_panic", desc: "Panics.", run: func(context.Context, *tools.Call) (*tools.Result, error) {
			panic("deliberate panic from the _panic test tool")
		}},
		&testTool{name: "_notify", desc: "Queues a notice with the given text for the calling session.", run: func(_ context.Context, c *tools.Call) (*tools.Result, error) {
			var args struct {
				Text string `json:"text"`
			}
			if err := tools.Decode(c.Arguments, &args); err != nil {
				return tools.Errorf("%v", err), nil
			}
			host.Notice(c.Session.Key, args.Text)
			return &tools.Result{Text: "queued"}, nil
		}},
	}
}

type testTool struct {
	name, desc string
	quick      bool // mounted as tools.Quick (quickTestTool)
	run        func(context.Context, *tools.Call) (*tools.Result, error)
}

// quickTestTool is a test tool mounted as tools.Quick, as the editor is.
type quickTestTool struct{ *testTool }

func (quickTestTool) QuickCalls() {}

var _ tools.Tool = (*testTool)(nil)

func (t *testTool) Name() string        { return t.name }
func (t *testTool) Description() string { return t.desc }
func (t *testTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"},"text":{"type":"string"}},"additionalProperties":true}`)
}
func (t *testTool) Call(ctx context.Context, c *tools.Call) (*tools.Result, error) {
	return t.run(ctx, c)
}
func (t *testTool) Present(c *tools.Call, res *tools.Result) tools.Presentation {
	return tools.Generic(t.name, c, res)
}
