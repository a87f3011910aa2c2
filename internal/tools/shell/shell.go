// Package shell is the Responses API's native shell tool, as OpenAI's
// models were trained on it: one call carries a batch of commands,
// {"action": {"commands": […], "timeout_ms": …, "max_output_length": …}},
// and its result is one output per command (stdout, stderr, and an exit
// code or a timeout), exactly the output list of a shell_call_output item.
//
// Each command runs in order as shellport's one-shot bash runs a command
// (internal/tools/bash's executor: `bash -c` in a new session, stdin
// /dev/null, supervised, owned by the session and killed with it), in the
// session's working directory; nothing carries over from one command to the
// next. timeout_ms bounds each command; a command that times out ends the
// batch, and the commands after it do not run. max_output_length bounds
// the characters of all outputs of the call together: streams that fit in
// an equal share keep everything, the rest share what is left, and a cut
// stream keeps its beginning and end around a note of what was left out.
package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// Name is the tool's name; the Responses API's shell_call carries none, so
// it cannot be changed.
const Name = "shell"

// Type is the tool's type in a Responses API tools list.
const Type = "shell"

// Defaults and limits of the settings.
const (
	DefaultTimeoutMs      = 120_000
	DefaultMaxTimeoutMs   = 600_000
	DefaultMaxOutputChars = 30_000
	DefaultMaxCommands    = 32
	MaxCommandsLimit      = 1024
)

// Config is the shell tool's config ({"tools": {"shell": {…}}} in the
// openai profile).
type Config struct {
	tools.Common
	// TimeoutMs is each command's timeout when the call gives no
	// timeout_ms.
	TimeoutMs int `json:"timeoutMs"`
	// MaxTimeoutMs caps timeout_ms: a longer one is lowered to it.
	MaxTimeoutMs int `json:"maxTimeoutMs"`
	// MaxOutputChars bounds the characters of a call's outputs, all
	// commands together, whatever max_output_length asks.
	MaxOutputChars int `json:"maxOutputChars"`
	// MaxCommands bounds the commands of one call.
	MaxCommands int `json:"maxCommands"`
	// Shell is the bash to run: a name looked up on PATH, or a path.
	Shell string `json:"shell"`
	// SpawnHelper is the shellport-spawn-helper every command starts
	// through (required on Linux). The runtime fills it from its carrier's
	// lookup when the config names none.
	SpawnHelper string `json:"spawnHelper"`
}

var (
	_ tools.Config    = (*Config)(nil)
	_ tools.CallBound = (*Config)(nil)
)

// DefaultConfig is the config with every default filled in.
func DefaultConfig() Config {
	return Config{
		TimeoutMs:      DefaultTimeoutMs,
		MaxTimeoutMs:   DefaultMaxTimeoutMs,
		MaxOutputChars: DefaultMaxOutputChars,
		MaxCommands:    DefaultMaxCommands,
		Shell:          bash.DefaultShell,
	}
}

// Check refuses values out of range and a name other than the tool's.
func (c *Config) Check() error {
	if c.Name != "" && c.Name != Name {
		return &tools.KeyError{Key: "name", Problem: fmt.Sprintf("cannot be changed: the Responses API's shell calls carry no name, so the tool is always %q (to serve bash under another name, use another profile)", Name)}
	}
	for _, err := range []error{
		tools.CheckRange("timeoutMs", c.TimeoutMs, 1, tools.MaxTimeoutMs, "milliseconds"),
		tools.CheckRange("maxTimeoutMs", c.MaxTimeoutMs, 1, tools.MaxTimeoutMs, "milliseconds"),
		tools.CheckRange("maxOutputChars", c.MaxOutputChars, bash.MinOutputChars, bash.MaxOutputChars, "characters"),
		tools.CheckRange("maxCommands", c.MaxCommands, 1, MaxCommandsLimit, ""),
		tools.CheckString("shell", c.Shell, false),
		tools.CheckString("spawnHelper", c.SpawnHelper, true),
	} {
		if err != nil {
			return err
		}
	}
	if c.TimeoutMs > c.MaxTimeoutMs {
		return &tools.KeyError{Key: "timeoutMs", Problem: "is above maxTimeoutMs; raise maxTimeoutMs too"}
	}
	return nil
}

// LongestCall is a full batch of commands that each run to the longest
// timeout, with the time each is given to stop.
func (c *Config) LongestCall() time.Duration {
	one := &bash.Config{TimeoutMs: c.TimeoutMs, MaxTimeoutMs: c.MaxTimeoutMs}
	return time.Duration(max(c.MaxCommands, 1)) * one.LongestCall()
}

// tool is the shell tool.
type tool struct {
	cfg Config
	run *bash.Runner
}

var (
	_ tools.Tool          = (*tool)(nil)
	_ tools.Native        = (*tool)(nil)
	_ tools.SessionCloser = (*tool)(nil)
	_ tools.Runner        = (*tool)(nil)
	_ tools.Closer        = (*tool)(nil)
)

// New returns the shell tool. cfg must be checked (the runtime passes a
// checked config); SpawnHelper is required on Linux.
func New(host tools.Host, cfg Config) tools.Tool {
	return &tool{cfg: cfg, run: bash.NewRunner(host, bash.Config{
		TimeoutMs:      cfg.TimeoutMs,
		MaxTimeoutMs:   cfg.MaxTimeoutMs,
		MaxOutputChars: cfg.MaxOutputChars,
		Shell:          cfg.Shell,
		SpawnHelper:    cfg.SpawnHelper,
	})}
}

func (t *tool) Name() string                 { return Name }
func (t *tool) Description() string          { return description(t.cfg) }
func (t *tool) InputSchema() json.RawMessage { return json.RawMessage(inputSchema) }
func (t *tool) CloseSession(key string)      { t.run.CloseSession(key) }
func (t *tool) Running(key string) string    { return t.run.Running(key) }
func (t *tool) Close() error                 { return t.run.Close() }

// Declaration is {"type": "shell"} in the Responses API's format.
func (t *tool) Declaration(format string) map[string]any {
	if format != tools.FormatOpenAIResponses {
		return nil
	}
	return map[string]any{"type": Type}
}

func (t *tool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	return t.call(ctx, call)
}

func (t *tool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	return present(call, res)
}
