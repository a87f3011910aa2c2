package shell

import (
	"strings"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// present shows a batch as one ACP execute card: the commands as the
// title (joined with "; ", the order they run in), a terminal with the
// session's directory, and once there is a result the text, the output
// list as raw output and the exit of the first command that failed (or of
// the last, when none did).
func present(call *tools.Call, res *tools.Result) tools.Presentation {
	var a args
	if call == nil || tools.Decode(call.Arguments, &a) != nil || a.Action == nil || len(a.Action.Commands) == 0 {
		return tools.Generic(Name, call, res)
	}
	p := tools.Presentation{
		Title:    strings.Join(a.Action.Commands, "; "),
		Kind:     "execute",
		RawInput: call.Arguments,
		Meta: map[string]any{
			"terminal_info": map[string]any{"terminal_id": call.ID, "cwd": call.Session.Cwd},
		},
	}
	if res == nil {
		return p
	}
	// The terminal's exit is the first failure's (a timeout has no exit
	// code), else the last command's.
	var exitCode, signal any
	failed := res.IsError
	if out, ok := res.Structured["output"].([]any); ok {
		for _, e := range out {
			oc, _ := e.(map[string]any)["outcome"].(map[string]any)
			code, isInt := oc["exit_code"].(int)
			if !failed {
				exitCode, signal = oc["exit_code"], nil
			}
			if oc["type"] == "timeout" || !isInt || code != 0 {
				if !failed {
					exitCode = oc["exit_code"] // nil for a timeout
				}
				failed = true
			}
		}
	}
	p.Status = "completed"
	if failed {
		p.Status = "failed"
	}
	if res.Text != "" {
		p.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
	}
	p.RawOutput = map[string]any{"output": res.Structured["output"], "exit_code": exitCode, "signal": signal}
	p.Meta["terminal_exit"] = map[string]any{"terminal_id": call.ID, "exit_code": exitCode, "signal": signal}
	return p
}

// PresentRunning is the update of the call's terminal for a piece of its
// live output (output.Running), titled like its card.
func (t *tool) PresentRunning(call *tools.Call, text string) tools.Presentation {
	p := present(call, nil)
	if p.Meta["terminal_info"] == nil {
		return tools.Running(p)
	}
	return output.Running(output.Command{Command: p.Title, TerminalID: call.ID}, text)
}
