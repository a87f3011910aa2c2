package persistent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// Anthropic's bash tool, bash_20250124: the persistent shell with the
// input Claude models were trained on, {"command": …} or {"restart": true}.
const (
	// NameAnthropic is the name Anthropic's API gives the tool; it cannot
	// be changed.
	NameAnthropic = "bash"
	// AnthropicType is the tool's type in a Messages API tools list.
	AnthropicType = "bash_20250124"
)

// AnthropicConfig is the config of Anthropic's bash ({"tools": {"bash":
// {…}}} in the anthropic profile): the persistent shell's settings. The
// name is fixed by Anthropic's API, so setting one is refused.
type AnthropicConfig Config

var (
	_ tools.Config    = (*AnthropicConfig)(nil)
	_ tools.CallBound = (*AnthropicConfig)(nil)
)

// DefaultAnthropicConfig is the config with every default filled in.
func DefaultAnthropicConfig() AnthropicConfig { return AnthropicConfig(DefaultConfig()) }

// Check refuses a name other than the API's, and what Config refuses.
func (c *AnthropicConfig) Check() error {
	if c.Name != "" && c.Name != NameAnthropic {
		return &tools.KeyError{Key: "name", Problem: fmt.Sprintf("cannot be changed: Anthropic's API names %s %q (to serve the shell under another name, use the persistent profile)", AnthropicType, NameAnthropic)}
	}
	cfg := Config(*c)
	return cfg.Check()
}

// LongestCall is the persistent shell's.
func (c *AnthropicConfig) LongestCall() time.Duration {
	cfg := Config(*c)
	return cfg.LongestCall()
}

// anthropicTool is the persistent tool with Anthropic's input.
type anthropicTool struct {
	*Tool
}

var (
	_ tools.Tool          = (*anthropicTool)(nil)
	_ tools.Native        = (*anthropicTool)(nil)
	_ tools.Serial        = (*anthropicTool)(nil)
	_ tools.SessionCloser = (*anthropicTool)(nil)
	_ tools.Closer        = (*anthropicTool)(nil)
)

// NewAnthropic returns Anthropic's bash tool: the persistent shell of [New]
// whose arguments are {"command": "…"} or {"restart": true}. In the
// Messages API's tools list it is {"type": "bash_20250124", "name":
// "bash"}; its description and schema serve every other format.
func NewAnthropic(host tools.Host, cfg AnthropicConfig) tools.Tool {
	return &anthropicTool{New(host, Config(cfg)).(*Tool)}
}

// Declaration is Anthropic's declaration of the tool, in the Messages API
// format only.
func (t *anthropicTool) Declaration(format string) map[string]any {
	if format != tools.FormatAnthropic {
		return nil
	}
	return map[string]any{"type": AnthropicType, "name": NameAnthropic}
}

func (t *anthropicTool) Description() string {
	return defaultDescription(t.timeout, t.shellCfg.maxChars) + "\n\nTo start over, call the tool with restart set to true instead of a command: the shell and everything it started are stopped, and a fresh shell starts in the session's starting directory."
}

func (t *anthropicTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"The bash command to run, as it would be written in a script; it may span several lines. Required unless restart is true."},"restart":{"type":"boolean","description":"true to replace the shell with a fresh one instead of running a command."}},"additionalProperties":false}`)
}

// anthropicArgs are the tool's arguments.
type anthropicArgs struct {
	Command *string `json:"command"`
	Restart *bool   `json:"restart"`
}

// Call runs the command, or restarts the shell. A restart together with a
// command is refused rather than guessed at: the model must say which.
func (t *anthropicTool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var args anthropicArgs
	if err := tools.Decode(call.Arguments, &args); err != nil {
		return tools.Errorf("%v", err), nil
	}
	restart := args.Restart != nil && *args.Restart
	switch {
	case restart && args.Command != nil && strings.TrimSpace(*args.Command) != "":
		return tools.Errorf(`invalid arguments: give either "command" or "restart": true, not both; a restart runs no command`), nil
	case restart:
		return t.Restart(ctx, call)
	case args.Command == nil && args.Restart != nil:
		return tools.Errorf(`invalid arguments: "restart" is false and there is no "command"; give a command to run, or "restart": true to start a fresh shell`), nil
	case args.Command == nil:
		return tools.Errorf(`invalid arguments: "command" is required (or "restart": true to start a fresh shell)`), nil
	}
	return t.Tool.Call(ctx, &tools.Call{ID: call.ID, Session: call.Session, Arguments: commandArgs(*args.Command), Observe: call.Observe})
}

// commandArgs are the persistent tool's own arguments for a command.
func commandArgs(command string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": command}) // a string always marshals
	return b
}

// Present shows a command like the persistent tool, and a restart as an
// execute card of its own without a terminal.
func (t *anthropicTool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	var args anthropicArgs
	if call == nil || tools.Decode(call.Arguments, &args) != nil {
		return tools.Generic(t.Name(), call, res)
	}
	if args.Restart == nil || !*args.Restart || args.Command != nil && strings.TrimSpace(*args.Command) != "" {
		if args.Command == nil {
			return tools.Generic(t.Name(), call, res)
		}
		return t.Tool.Present(&tools.Call{ID: call.ID, Session: call.Session, Arguments: commandArgs(*args.Command)}, res)
	}
	p := tools.Presentation{Title: "Restart the shell", Kind: "execute", RawInput: map[string]any{"restart": true}}
	if res != nil {
		p.Status = tools.StatusOf(res)
		p.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
	}
	return p
}

// PresentRunning updates a command's card like the persistent tool; a
// restart draws no terminal.
func (t *anthropicTool) PresentRunning(call *tools.Call, text string) tools.Presentation {
	var args anthropicArgs
	if call != nil && tools.Decode(call.Arguments, &args) == nil && args.Command != nil && (args.Restart == nil || !*args.Restart) {
		return t.Tool.PresentRunning(&tools.Call{ID: call.ID, Session: call.Session, Arguments: commandArgs(*args.Command)}, text)
	}
	return tools.Running(t.Present(call, nil))
}
