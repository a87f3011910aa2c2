package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shellport/shellport/internal/carrier/inproc"
	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/rpc"
)

// bridge is the core side of the carrier: one in-process connection to a
// runtime and the one session this MCP connection is. It speaks the same
// JSON-RPC message set as every other carrier.
type bridge struct {
	conn    *inproc.Conn
	session string
	nextID  atomic.Int64
	routed  chan struct{} // closed when the notification router returns

	mu      sync.Mutex
	streams map[int64]func(text string) // live output by request id
}

// toolInfo is one tool as tools/list (format mcp) describes it.
type toolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// callResult is our tools/call result with its members kept as raw JSON, so
// what reaches the MCP client is byte for byte what the runtime produced.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError           bool                       `json:"isError"`
	StructuredContent json.RawMessage            `json:"structuredContent,omitempty"`
	Meta              map[string]json.RawMessage `json:"_meta,omitempty"`
}

// coreError is a JSON-RPC error the runtime answered with.
type coreError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *coreError) Error() string { return e.Message }

// openBridge starts a runtime, opens the session in cwd and lists its tools.
// A bad config or cwd fails here, before the MCP client is answered at all.
func openBridge(opts core.Options, cwd string) (*bridge, []toolInfo, error) {
	b := &bridge{conn: inproc.OpenOptions(opts), routed: make(chan struct{})}
	fail := func(err error) (*bridge, []toolInfo, error) {
		_ = b.conn.Close() // best effort: nothing has started yet
		close(b.routed)
		return nil, nil, err
	}
	var session struct {
		Session string `json:"session"`
	}
	if err := b.request(context.Background(), "session/new", map[string]any{"cwd": cwd}, &session); err != nil {
		return fail(fmt.Errorf("open session in %q: %w", cwd, err))
	}
	b.session = session.Session
	var list struct {
		Tools []toolInfo `json:"tools"`
	}
	if err := b.request(context.Background(), "tools/list", map[string]any{"format": core.FormatMCP}, &list); err != nil {
		return fail(fmt.Errorf("list tools: %w", err))
	}
	return b, list.Tools, nil
}

// route delivers the runtime's notifications until the connection closes.
// session/notice (a background task finished) goes to notice; tools/output
// (live output of a call made with streaming on) to that call's output
// function (callProgress.output).
func (b *bridge) route(notice func(text string)) {
	defer close(b.routed)
	for {
		msg, err := b.conn.Recv(time.Hour)
		if err != nil {
			return // closed
		}
		if msg == nil {
			continue
		}
		var n struct {
			Method string `json:"method"`
			Params struct {
				ID   int64  `json:"id"`
				Text string `json:"text"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &n) != nil || n.Params.Text == "" {
			continue
		}
		switch n.Method {
		case "session/notice":
			notice(n.Params.Text)
		case "tools/output":
			b.mu.Lock()
			out := b.streams[n.Params.ID]
			b.mu.Unlock()
			if out != nil {
				out(n.Params.Text)
			}
		}
	}
}

// call runs one tool in the session. When ctx ends first it cancels the
// call in the runtime and waits for the runtime's answer, which comes only
// after the tool has stopped what it started (a persistent shell is reset),
// so a cancelled call leaves no process behind.
// With output set, the call streams: output gets each piece of its live
// output as it is produced.
func (b *bridge) call(ctx context.Context, name string, args json.RawMessage, output func(text string)) (*callResult, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var res callResult
	params := map[string]any{"session": b.session, "name": name, "arguments": args}
	id := b.nextID.Add(1)
	if output != nil {
		params["stream"] = true
		b.mu.Lock()
		if b.streams == nil {
			b.streams = map[int64]func(string){}
		}
		b.streams[id] = output
		b.mu.Unlock()
		defer func() {
			b.mu.Lock()
			delete(b.streams, id)
			b.mu.Unlock()
		}()
	}
	if err := b.requestID(ctx, id, "tools/call", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// request makes one JSON-RPC request of the runtime and decodes its result.
func (b *bridge) request(ctx context.Context, method string, params, dst any) error {
	return b.requestID(ctx, b.nextID.Add(1), method, params, dst)
}

// requestID is request with the id chosen by the caller.
func (b *bridge) requestID(ctx context.Context, id int64, method string, params, dst any) error {
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", method, err)
	}
	replies := make(chan []byte, 1)
	errs := make(chan error, 1)
	go func() {
		reply, err := b.conn.Call(msg)
		if err != nil {
			errs <- err
			return
		}
		replies <- reply
	}()
	var reply []byte
	select {
	case reply = <-replies:
	case err := <-errs:
		return fmt.Errorf("%s: %w", method, err)
	case <-ctx.Done():
		cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": rpc.CancelMethod, "params": map[string]any{"id": id}})
		_ = b.conn.Send(cancel) // a closed runtime has cancelled everything already
		select {
		case <-replies:
		case <-errs:
		}
		return ctx.Err()
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *coreError      `json:"error"`
	}
	if err := json.Unmarshal(reply, &resp); err != nil {
		return fmt.Errorf("%s: unreadable reply: %w", method, err)
	}
	if resp.Error != nil {
		return resp.Error
	}
	if err := json.Unmarshal(resp.Result, dst); err != nil {
		return fmt.Errorf("%s: unreadable result: %w", method, err)
	}
	return nil
}

// close kills everything the session started and stops the router. Safe to
// call more than once.
func (b *bridge) close() error {
	err := b.conn.Close()
	if errors.Is(err, inproc.ErrClosed) {
		return nil
	}
	return err
}
