package bash

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/shellport/shellport/internal/tools"
)

func (t *bashTool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	return presentBash(t.e.set.bashName(), call, res)
}

func (t *outputTool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	return presentTask(t.e.set.outputName(), "Read output from background task ", "read", call, res)
}

func (t *killTool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	return presentTask(t.e.set.killName(), "Kill background task ", "other", call, res)
}

// presentBash renders a bash call as an ACP terminal card: the title is the
// exact command, the description a text block above it. A foreground call
// carries _meta.terminal_info at the start and _meta.terminal_exit with the
// result, plus a fenced console block for clients without terminals. A
// background launch is not a terminal: it ends at once, while its task runs.
func presentBash(name string, call *tools.Call, res *tools.Result) (p tools.Presentation) {
	defer func() {
		if recover() != nil { // never let a strange replayed result break a UI
			p = tools.Generic(name, call, res)
		}
	}()
	if call == nil {
		return tools.Generic(name, call, res)
	}
	var a Params
	if tools.Decode(call.Arguments, &a) != nil || strings.TrimSpace(a.Command) == "" {
		return tools.Generic(name, call, res)
	}
	p = tools.Presentation{Title: a.Command, Kind: "execute", RawInput: a.Command}
	if a.Description != "" {
		p.Content = []tools.ContentBlock{tools.TextBlock(a.Description)}
	}
	if res == nil {
		if !a.RunInBackground {
			info := map[string]any{"terminal_id": call.ID}
			if cwd := workdirOf(call.Session.Cwd, a.Workdir); cwd != "" {
				info["cwd"] = cwd
			}
			p.Meta = map[string]any{"terminal_info": info}
		}
		return p
	}
	p.Status = tools.StatusOf(res)
	if a.RunInBackground {
		p.Content = append(p.Content, tools.TextBlock(res.Text))
		p.RawOutput = map[string]any{"output": res.Text}
		return p
	}
	code, sig, st := exitStatus(res)
	p.Status = tools.CommandStatus(res, code, sig, st.TimedOut)
	output := res.Raw
	if output == "" {
		output = st.Body // a replayed result without Raw: the best we have
	}
	raw := map[string]any{"output": output, "exit_code": code, "signal": sig}
	if st.TimedOut {
		raw["timed_out"] = true
	}
	p.RawOutput = raw
	p.Meta = map[string]any{"terminal_exit": map[string]any{"terminal_id": call.ID, "exit_code": code, "signal": sig}}
	p.Content = append(p.Content, tools.TextBlock(fence(res.Text)))
	return p
}

// exitStatus returns the exit code and signal for terminal_exit (nil when
// unknown; never a negative code) and the parsed markers. Structured wins
// over the text, which output can imitate.
func exitStatus(res *tools.Result) (code, sig any, st Status) {
	st = ParseStatus(res.Text)
	if s := res.Structured; s != nil {
		if n, ok := toInt(s["exitCode"]); ok && n >= 0 {
			code = n
		}
		if name, ok := s["signal"].(string); ok && name != "" {
			code, sig = nil, name
		}
		st.TimedOut, _ = s["timedOut"].(bool)
		return code, sig, st
	}
	if res.IsError && !st.Cancelled {
		return nil, nil, st // an argument or start error: there was no process
	}
	if st.Signal != "" {
		return nil, st.Signal, st
	}
	return st.ExitCode, nil, st
}

// toInt reads a number that may have been through JSON.
func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<31 {
			return int(n), true
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i), true
		}
	}
	return 0, false
}

// fence wraps text in a console code block whose fence is longer than any
// run of backticks inside it.
func fence(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return f + "console\n" + text + f
}

func presentTask(name, title, kind string, call *tools.Call, res *tools.Result) (p tools.Presentation) {
	defer func() {
		if recover() != nil {
			p = tools.Generic(name, call, res)
		}
	}()
	if call == nil {
		return tools.Generic(name, call, res)
	}
	var a TaskParams
	if tools.Decode(call.Arguments, &a) != nil || a.TaskID == "" {
		return tools.Generic(name, call, res)
	}
	p = tools.Presentation{Title: title + a.TaskID, Kind: kind, RawInput: a.TaskID}
	if res != nil {
		p.Status = tools.StatusOf(res)
		if res.Text != "" {
			p.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
		}
	}
	return p
}
