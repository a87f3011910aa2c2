package persistent

import "github.com/shellport/shellport/internal/tools"

// Present shows the call as an ACP execute card titled with the exact
// command, with terminal data (the call id as terminal id, the session
// cwd) and, once there is a result, its output and exit status.
func (t *Tool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	var args struct {
		Command *string `json:"command"`
	}
	if call == nil || tools.Decode(call.Arguments, &args) != nil || args.Command == nil {
		return tools.Generic(t.Name(), call, res)
	}
	p := tools.Presentation{
		Title:    *args.Command,
		Kind:     "execute",
		RawInput: *args.Command,
		Meta: map[string]any{
			"terminal_info": map[string]any{"terminal_id": call.ID, "cwd": call.Session.Cwd},
		},
	}
	if res == nil {
		return p
	}
	exitCode, signal := res.Structured["exitCode"], res.Structured["signal"]
	timedOut, _ := res.Structured["timedOut"].(bool)
	shellDied, _ := res.Structured["shellReset"].(bool)
	p.Status = tools.CommandStatus(res, exitCode, signal, timedOut || shellDied && exitCode == nil)
	if res.Text != "" {
		p.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
	}
	p.RawOutput = map[string]any{"output": res.Raw, "exit_code": exitCode, "signal": signal}
	p.Meta["terminal_exit"] = map[string]any{"terminal_id": call.ID, "exit_code": exitCode, "signal": signal}
	return p
}
