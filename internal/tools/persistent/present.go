package persistent

import (
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// Present shows the call as the bash card both profiles share
// (output.Card): titled with the exact command, with terminal data (the
// call id as terminal id, the session's directory) and, once there is a
// result, its output and exit status.
func (t *Tool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	var args struct {
		Command *string `json:"command"`
	}
	if call == nil || tools.Decode(call.Arguments, &args) != nil || args.Command == nil {
		return tools.Generic(t.host.Name(t.Name()), call, res)
	}
	return output.Card(output.Command{Command: *args.Command, TerminalID: call.ID, Cwd: call.Session.Cwd}, res)
}

// PresentRunning is the update of the call's card for a piece of its live
// output (output.Running).
func (t *Tool) PresentRunning(call *tools.Call, text string) tools.Presentation {
	var args struct {
		Command *string `json:"command"`
	}
	if call == nil || tools.Decode(call.Arguments, &args) != nil || args.Command == nil {
		return tools.Running(tools.Generic(t.host.Name(t.Name()), call, nil))
	}
	return output.Running(output.Command{Command: *args.Command, TerminalID: call.ID}, text)
}
