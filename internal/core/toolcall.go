package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shellport/shellport/internal/jsonappend"
	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
	"github.com/shellport/shellport/internal/tools/persistent"
)

type toolsCallParams struct {
	Session   string          `json:"session,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	CallID    string          `json:"callId,omitempty"`
	// Stream asks for the call's output as it is produced, in tools/output
	// notifications before the reply (issue 17).
	Stream bool `json:"stream,omitempty"`
}

// toolOutput is the params of a tools/output notification: a piece of the
// live output of the tools/call request with id ID.
type toolOutput struct {
	ID      rpc.ID `json:"id"`
	CallID  string `json:"callId"`
	Session string `json:"session,omitempty"`
	Text    string `json:"text"`
	Dropped int64  `json:"dropped,omitempty"`
}

// CallResult is the MCP-shaped result of tools/call.
type CallResult struct {
	Content           []tools.TextPart `json:"content"`
	IsError           bool             `json:"isError"`
	StructuredContent map[string]any   `json:"structuredContent,omitempty"`
	Meta              map[string]any   `json:"_meta,omitempty"`
}

// AppendJSON implements jsonappend.Appender: the reply's result without
// encoding/json's reflection, the same bytes (issue 16).
func (r *CallResult) AppendJSON(dst []byte) ([]byte, bool) {
	if r == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, `{"content":`...)
	dst = jsonappend.Array(dst, r.Content, tools.TextPart.AppendJSONTo)
	dst = append(dst, `,"isError":`...)
	dst = jsonappend.Bool(dst, r.IsError)
	var ok bool
	if len(r.StructuredContent) > 0 {
		dst = append(dst, `,"structuredContent":`...)
		if dst, ok = jsonappend.Map(dst, r.StructuredContent); !ok {
			return dst, false
		}
	}
	if len(r.Meta) > 0 {
		dst = append(dst, `,"_meta":`...)
		if dst, ok = jsonappend.Map(dst, r.Meta); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// toolsCall admits a call in arrival order and returns the job that runs it.
// For a serial tool the call takes its place in the session's queue here, so
// pipelined calls run first to last whatever the goroutine scheduler does.
//
// A call of a session is counted in the session's calls from here until its
// job returns, and watches the session's context: if the session closes
// before the call's turn came, the call is answered "session closed" and
// never reaches the tool; if it closes while the tool runs, the tool's
// context is cancelled and the call is answered as cancelled.
func (rt *Runtime) toolsCall(req *rpc.Request) rpc.Answer {
	var p toolsCallParams
	if err := decodeParams("tools/call", req.Params, &p); err != nil {
		return fail(err)
	}
	if p.Name == "" {
		return fail(rpc.Errorf(rpc.CodeInvalidParams, `invalid params for tools/call: "name" is required`))
	}
	if len(p.Arguments) > 0 && p.Arguments[0] != '{' && string(p.Arguments) != "null" {
		return fail(rpc.Errorf(rpc.CodeInvalidParams, "invalid params for tools/call: arguments of %q must be an object", p.Name))
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	m := rt.reg.lookup(p.Name)
	if m == nil {
		return fail(rpc.Errorf(rpc.CodeUnknownTool, "unknown tool %q (tools: %s)", p.Name, strings.Join(rt.reg.names(), ", ")))
	}
	call := &tools.Call{ID: p.CallID, Arguments: p.Arguments, Session: tools.Session{Cwd: rt.cwd}}
	setSandbox(&call.Session, rt.defaultPolicy)
	if call.ID == "" {
		call.ID = fmt.Sprintf("call-%d", rt.nextCall.Add(1))
	}
	var s *session
	var wait, turnDone chan struct{}
	switch {
	case p.Session != "":
		if s = rt.sessions[p.Session]; s == nil {
			return fail(rt.unknownSession("tools/call", p.Session))
		}
		call.Session = s.info
		if m.serial {
			wait, turnDone = s.turn[m.name], make(chan struct{})
			s.turn[m.name] = turnDone
		}
	case m.serial:
		return fail(rpc.Errorf(rpc.CodeInvalidParams, "tools/call: %q keeps its state per session, so a call to it must name one in \"session\"", p.Name))
	}
	release := handOver(wait, turnDone)
	if hasNUL(p.Arguments) {
		release()
		return done(errorResult(m, call, "invalid arguments: strings must not contain NUL (\\u0000) characters"), nil)
	}
	var live *output.Stream
	if p.Stream {
		live = rt.liveStream(req.ID, call)
	}
	rt.calls.Add(1)
	if s != nil {
		s.calls.Add(1)
		s.active.Add(1)
	}
	// end is what every call does once its tool has returned, in this
	// order, whichever way it ran.
	end := func(err error, cancelled bool) {
		if s != nil {
			s.active.Add(-1)
			s.calls.Done()
		}
		if live != nil {
			// Before the reply: the last piece goes out first, and a
			// cancelled call's stream ends with nothing more.
			live.Close(err != nil || cancelled)
		}
		release()
		rt.calls.Done()
	}
	// A quick tool's call may run on the thread of a caller blocked on it
	// (rpc.Server.DeliverInline) when nothing stands before it in the
	// session: it then cannot wait behind another call.
	free := turnFree(wait)
	answer := rpc.Answer{Quick: m.quick && free, Job: func(ctx context.Context) (res any, err error) {
		defer func() { end(err, ctx.Err() != nil) }()
		if s == nil {
			return rt.runTool(ctx, m, call), nil
		}
		return rt.runInSession(ctx, s, wait, m, call)
	}}
	if st, ok := m.tool.(starter); ok && s != nil && free {
		answer.Begin = func(ctx context.Context, resume func(rpc.Job)) bool {
			return rt.beginInSession(ctx, s, st, m, call, end, resume)
		}
	}
	return answer
}

// starter is a tool whose call can start without waiting and end on
// whichever goroutine sees it end (persistent bash, issue 16). StartCall
// does bounded work on the calling goroutine and reports true, having
// arranged for resume to be called exactly once, from any goroutine, with
// the function that finishes the call (bounded: no waiting); or it reports
// false, having done nothing, and the call goes through Call instead.
type starter interface {
	StartCall(ctx context.Context, call *tools.Call, resume func(finish func() (*tools.Result, error))) bool
}

var _ starter = (*persistent.Tool)(nil)

// beginInSession is runInSession split in two (rpc.Begin): a call whose
// turn has come starts its tool on the delivering goroutine, and the
// goroutine that sees the tool's work end builds the result and the reply.
// It keeps runInSession's rules: a closed session runs nothing, and a
// close while the call runs cancels it.
func (rt *Runtime) beginInSession(ctx context.Context, s *session, st starter, m *mounted, call *tools.Call, end func(error, bool), resume func(rpc.Job)) bool {
	if s.ctx.Err() != nil {
		return false // Call's path answers it
	}
	callCtx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, cancel)
	started := st.StartCall(callCtx, call, func(finish func() (*tools.Result, error)) {
		resume(func(ctx context.Context) (result any, err error) {
			defer func() { end(err, ctx.Err() != nil) }()
			defer cancel()
			defer stop()
			res, err := finish()
			out := rt.toolResult(m, call, res, err)
			if s.ctx.Err() != nil && ctx.Err() == nil {
				return nil, closedWhileRunning(s)
			}
			return out, nil
		})
	})
	if !started {
		stop()
		cancel()
	}
	return started
}

// turnFree reports whether a call that waits on wait for its turn has it
// already.
func turnFree(wait chan struct{}) bool {
	if wait == nil {
		return true
	}
	select {
	case <-wait:
		return true
	default:
		return false
	}
}

// liveStream starts the live output of the request with id: the call's
// output as it is produced goes out in tools/output notifications,
// coalesced and bounded by output.Stream.
func (rt *Runtime) liveStream(id rpc.ID, call *tools.Call) *output.Stream {
	n := toolOutput{ID: id, CallID: call.ID, Session: call.Session.ID}
	live := output.NewStream(func(p output.Piece) {
		n := n
		n.Text, n.Dropped = p.Text, p.Dropped
		_ = rt.srv.Notify("tools/output", n) // the client may be gone
	})
	call.Observe = live.Write
	return live
}

// runInSession waits for the call's turn, then runs it unless the session
// closed first; a close while it runs cancels it.
func (rt *Runtime) runInSession(ctx context.Context, s *session, wait chan struct{}, m *mounted, call *tools.Call) (any, error) {
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.ctx.Done():
		}
	}
	if s.ctx.Err() != nil {
		return nil, closedError("tools/call", s.info.ID, " (it was closed before this call started)")
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	res := rt.runTool(callCtx, m, call)
	if s.ctx.Err() != nil && ctx.Err() == nil {
		return nil, closedWhileRunning(s)
	}
	return res, nil
}

// closedWhileRunning is the answer of a call whose session closed while
// it ran.
func closedWhileRunning(s *session) error {
	return &rpc.Error{
		Code:    rpc.CodeRequestCancelled,
		Message: fmt.Sprintf("request cancelled: session %q was closed while the call ran", s.info.ID),
		Data:    map[string]any{"session": s.info.ID, "closed": true},
	}
}

// handOver returns the function that passes the session's turn to the next
// call. A call that ends before its turn came (cancelled while queued) must
// not let its successor overtake the predecessor, so the hand-over then
// waits for the predecessor too.
func handOver(wait, turnDone chan struct{}) func() {
	return func() {
		switch {
		case turnDone == nil:
		case wait == nil:
			close(turnDone)
		default:
			select {
			case <-wait:
				close(turnDone)
			default:
				go func() { <-wait; close(turnDone) }()
			}
		}
	}
}

func (rt *Runtime) runTool(ctx context.Context, m *mounted, call *tools.Call) *CallResult {
	res, err := m.tool.Call(ctx, call)
	return rt.toolResult(m, call, res, err)
}

// toolResult is the CallResult of what a tool's call returned.
func (rt *Runtime) toolResult(m *mounted, call *tools.Call, res *tools.Result, err error) *CallResult {
	switch {
	case err != nil:
		res = &tools.Result{Text: fmt.Sprintf("tool %q failed: %v", m.name, err), IsError: true}
	case res == nil:
		res = &tools.Result{Text: fmt.Sprintf("tool %q returned no result", m.name), IsError: true}
	}
	return buildResult(m, call, res)
}

func errorResult(m *mounted, call *tools.Call, text string) *CallResult {
	return buildResult(m, call, &tools.Result{Text: text, IsError: true})
}

func buildResult(m *mounted, call *tools.Call, res *tools.Result) *CallResult {
	out := &CallResult{
		Content:           []tools.TextPart{{Type: "text", Text: res.Text}},
		IsError:           res.IsError,
		StructuredContent: withSandboxMeta(res.Structured, call.Session.Sandbox),
	}
	out.Meta = map[string]any{"presentation": present(m, call, res)}
	return out
}

// present asks the tool for its presentation; a tool whose renderer panics
// gets the generic card rather than taking the call down with it.
func present(m *mounted, call *tools.Call, res *tools.Result) (p tools.Presentation) {
	defer func() {
		if recover() != nil {
			p = tools.Generic(m.name, call, res)
		}
	}()
	return m.tool.Present(call, res)
}

// hasNUL reports whether a JSON text holds an escaped NUL in a string. Raw
// NUL bytes never get this far: they make the message invalid JSON.
func hasNUL(raw json.RawMessage) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] == 'u' && i+5 < len(raw) && string(raw[i+2:i+6]) == "0000" {
			return true
		}
		i++ // skip the escaped character, so `\\u0000` is not a NUL
	}
	return false
}
