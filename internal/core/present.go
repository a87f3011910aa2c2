package core

import (
	"encoding/json"
	"strings"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/tools"
)

// toolsPresentParams is what tools/present renders: a call (the tool's
// name and the model's arguments, the call id and where it runs) and,
// optionally, its logged result and a piece of live output.
type toolsPresentParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	CallID    string          `json:"callId,omitempty"`
	Session   string          `json:"session,omitempty"`
	// Cwd stands in for the session's directory when the session is gone
	// (a transcript replayed later).
	Cwd    string          `json:"cwd,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Output string          `json:"output,omitempty"`
}

// toolsPresentResult is a call's presentation at every stage: the card
// drawn when the model asks for the call, the update for a piece of live
// output while it runs, and the completed card when a result was given.
type toolsPresentResult struct {
	Call      tools.Presentation  `json:"call"`
	Running   tools.Presentation  `json:"running"`
	Completed *tools.Presentation `json:"completed,omitempty"`
}

// loggedResult is a tools/call result as a client logged it.
type loggedResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
	Meta              struct {
		Presentation struct {
			RawOutput struct {
				Output *string `json:"output"`
			} `json:"rawOutput"`
		} `json:"presentation"`
	} `json:"_meta"`
}

// toolsPresent renders presentations without running anything, with the
// same functions the results use, so the two never disagree. Arguments
// and results of any shape are drawn (a generic card where the tool cannot
// read them); only the request itself can be wrong.
func (rt *Runtime) toolsPresent(params json.RawMessage) (any, error) {
	var p toolsPresentParams
	if err := decodeParams("tools/present", params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, rpc.Errorf(rpc.CodeInvalidParams, `invalid params for tools/present: "name" is required`)
	}
	rt.mu.Lock()
	m := rt.reg.lookup(p.Name)
	call := &tools.Call{ID: p.CallID, Arguments: p.Arguments, Session: tools.Session{Cwd: rt.cwd}}
	if p.Session != "" {
		s := rt.sessions[p.Session]
		if s == nil && p.Cwd == "" {
			rt.mu.Unlock()
			return nil, rt.unknownSession("tools/present", p.Session)
		}
		if s != nil {
			call.Session = s.info
		}
	}
	rt.mu.Unlock()
	if p.Cwd != "" {
		call.Session.Cwd = p.Cwd
	}
	if call.ID == "" {
		call.ID = "call"
	}
	var res *tools.Result
	if len(p.Result) > 0 && string(p.Result) != "null" {
		res = readLogged(p.Result)
	}
	if m == nil {
		// A tool this runtime does not mount (another profile's, a renamed
		// one): still a card.
		out := toolsPresentResult{Call: tools.Generic(p.Name, call, nil)}
		out.Running = tools.Running(out.Call)
		if res != nil {
			done := tools.Generic(p.Name, call, res)
			out.Completed = &done
		}
		return out, nil
	}
	out := toolsPresentResult{Call: present(m, call, nil), Running: presentRunning(m, call, p.Output)}
	if res != nil {
		done := present(m, call, res)
		out.Completed = &done
	}
	return out, nil
}

// readLogged turns a logged tools/call result into the tool result it was
// made from, as far as it tells: a result of another shape is its text, or
// nothing.
func readLogged(raw json.RawMessage) *tools.Result {
	var l loggedResult
	if json.Unmarshal(raw, &l) != nil {
		var text string
		if json.Unmarshal(raw, &text) == nil {
			return &tools.Result{Text: text}
		}
		return &tools.Result{}
	}
	var texts []string
	for _, c := range l.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	res := &tools.Result{Text: strings.Join(texts, "\n"), IsError: l.IsError, Structured: l.StructuredContent}
	if out := l.Meta.Presentation.RawOutput.Output; out != nil {
		res.Raw = *out
	}
	return res
}

// presentRunning asks the tool for its running update; a tool that draws
// no terminal gets its call card's title and kind in progress, and one
// whose renderer panics the generic card's.
func presentRunning(m *mounted, call *tools.Call, text string) (p tools.Presentation) {
	defer func() {
		if recover() != nil {
			p = tools.Running(tools.Generic(m.name, call, nil))
		}
	}()
	if r, ok := m.tool.(tools.RunningPresenter); ok {
		return r.PresentRunning(call, text)
	}
	return tools.Running(m.tool.Present(call, nil))
}
