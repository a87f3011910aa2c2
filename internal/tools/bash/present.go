package bash

import (
	"strings"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
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

// PresentRunning is the update of a foreground call's card for a piece
// of its live output (output.Running); a background launch draws no
// terminal.
func (t *bashTool) PresentRunning(call *tools.Call, text string) (p tools.Presentation) {
	name := t.e.set.bashName()
	defer func() {
		if recover() != nil {
			p = tools.Running(tools.Generic(name, call, nil))
		}
	}()
	var a Params
	if call == nil || tools.Decode(call.Arguments, &a) != nil || strings.TrimSpace(a.Command) == "" || a.RunInBackground {
		return tools.Running(presentBash(name, call, nil))
	}
	return output.Running(output.Command{Command: a.Command, TerminalID: call.ID}, text)
}

// presentBash renders a bash call as the bash card both profiles share
// (output.Card), with the description as a text block above the command.
// A background launch is not a terminal: it ends at once, while its task
// runs, so its card holds the launch text and no terminal data.
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
	if !a.RunInBackground {
		return output.Card(output.Command{Command: a.Command, Description: a.Description, TerminalID: call.ID, Cwd: workdirOf(call.Session.Cwd, a.Workdir)}, res)
	}
	p = tools.Presentation{Title: a.Command, Kind: "execute", RawInput: a.Command}
	if a.Description != "" {
		p.Content = []tools.ContentBlock{tools.TextBlock(a.Description)}
	}
	if res != nil {
		p.Status = tools.StatusOf(res)
		p.Content = append(p.Content, tools.TextBlock(res.Text))
		p.RawOutput = map[string]any{"output": res.Text}
	}
	return p
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
