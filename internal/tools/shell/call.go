package shell

import (
	"context"
	"fmt"
	"strings"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// args are the tool's arguments: a shell_call's action.
type args struct {
	Action *action `json:"action"`
}

type action struct {
	Commands        []string `json:"commands"`
	TimeoutMs       *int64   `json:"timeout_ms"`
	MaxOutputLength *int64   `json:"max_output_length"`
}

// minKeep is the least the runner keeps of each end of a stream, so that a
// tiny budget does not send every output to a spill file.
const minKeep = 256

// usageExit is the exit code an output reports for a call whose arguments
// are wrong, so that nothing ran: the status bash gives a usage error.
const usageExit = 2

// startExit is the exit code of a command that could not be started: the
// status bash gives a command it cannot find or run.
const startExit = 127

func (t *tool) call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	a, timeoutMs, limit, res := t.parse(call)
	if res != nil {
		return res, nil
	}
	var runs []run
	for i, command := range a.Commands {
		out, err := t.run.Run(ctx, call, command, call.Session.Cwd, timeoutMs, max(limit, minKeep))
		if err != nil {
			return nil, err
		}
		if out.StartErr != nil {
			out.Stderr = bash.Stream{Head: []byte("could not start the command: " + out.StartErr.Error())}
		}
		runs = append(runs, run{command: command, out: out})
		if out.TimedOut {
			runs[i].skipped = len(a.Commands) - i - 1
			break
		}
	}
	return result(runs, limit, a.MaxOutputLength, timeoutMs), nil
}

// parse reads and checks the arguments; it returns the timeout of each
// command and the call's character budget, or the result of a call whose
// arguments are wrong.
func (t *tool) parse(call *tools.Call) (action, int, int, *tools.Result) {
	var a args
	if err := tools.Decode(call.Arguments, &a); err != nil {
		msg := err.Error()
		if strings.Contains(msg, "unknown argument") {
			msg += `; the arguments are {"action": {"commands": [...], "timeout_ms": ..., "max_output_length": ...}}`
		}
		return action{}, 0, 0, refused(msg)
	}
	switch {
	case a.Action == nil:
		return action{}, 0, 0, refused(`invalid arguments: "action" is required: {"commands": ["the first command", …], "timeout_ms": …, "max_output_length": …}`)
	case a.Action.Commands == nil:
		return action{}, 0, 0, refused(`invalid arguments: "action.commands" is required: the list of commands to run`)
	case len(a.Action.Commands) == 0:
		return action{}, 0, 0, refused(`invalid arguments: "action.commands" is empty; give at least one command to run`)
	case len(a.Action.Commands) > t.cfg.MaxCommands:
		return action{}, 0, 0, refused(fmt.Sprintf(`invalid arguments: "action.commands" holds %d commands; one call runs at most %d, so split them into several calls`, len(a.Action.Commands), t.cfg.MaxCommands))
	}
	timeoutMs := t.cfg.TimeoutMs
	if ms := a.Action.TimeoutMs; ms != nil {
		if *ms <= 0 {
			return action{}, 0, 0, refused(fmt.Sprintf(`invalid arguments: "action.timeout_ms" must be a positive number of milliseconds, got %d`, *ms))
		}
		timeoutMs = int(min(*ms, int64(t.cfg.MaxTimeoutMs)))
	}
	limit := t.cfg.MaxOutputChars
	if n := a.Action.MaxOutputLength; n != nil {
		if *n < 0 {
			return action{}, 0, 0, refused(fmt.Sprintf(`invalid arguments: "action.max_output_length" must be 0 or more characters, got %d`, *n))
		}
		limit = int(min(*n, int64(limit)))
	}
	return *a.Action, timeoutMs, limit, nil
}

// refused is the result of a call whose arguments are wrong: nothing ran.
// Its output reports the problem as a command would, on stderr with the
// status of a usage error, so the model reads it in the output it expects.
func refused(msg string) *tools.Result {
	return &tools.Result{
		Text:    msg,
		IsError: true,
		Structured: map[string]any{
			"output": []any{entry("", msg, outcome{exitCode: usageExit})},
		},
	}
}

// run is one command of a batch and what it did.
type run struct {
	command string
	out     bash.Output
	skipped int // commands after this one that did not run because it timed out
}
