package bash

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shellport/shellport/internal/tools"
)

type bashTool struct{ e *executor }
type outputTool struct{ e *executor }
type killTool struct{ e *executor }

var (
	_ tools.Tool          = (*bashTool)(nil)
	_ tools.SessionCloser = (*bashTool)(nil)
	_ tools.Closer        = (*bashTool)(nil)
	_ tools.SessionCloser = (*outputTool)(nil)
	_ tools.Closer        = (*outputTool)(nil)
	_ tools.SessionCloser = (*killTool)(nil)
	_ tools.Closer        = (*killTool)(nil)
)

func (t *bashTool) Name() string                 { return NameBash }
func (t *bashTool) Description() string          { return bashDescription(t.e.set) }
func (t *bashTool) InputSchema() json.RawMessage { return bashSchema(t.e.set) }
func (t *bashTool) CloseSession(id string)       { t.e.closeSession(id) }
func (t *bashTool) Running(id string) string     { return t.e.busy(id) }
func (t *bashTool) Close() error                 { return t.e.close() }

func (t *outputTool) Name() string                 { return NameOutput }
func (t *outputTool) Description() string          { return outputDescription(t.e.set) }
func (t *outputTool) InputSchema() json.RawMessage { return taskSchema() }
func (t *outputTool) CloseSession(id string)       { t.e.closeSession(id) }
func (t *outputTool) Close() error                 { return t.e.close() }

func (t *killTool) Name() string                 { return NameKill }
func (t *killTool) Description() string          { return killDescription(t.e.set) }
func (t *killTool) InputSchema() json.RawMessage { return taskSchema() }
func (t *killTool) CloseSession(id string)       { t.e.closeSession(id) }
func (t *killTool) Close() error                 { return t.e.close() }

func (t *bashTool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	if call == nil {
		return tools.Errorf("invalid call: no arguments"), nil
	}
	var p Params
	if err := tools.Decode(call.Arguments, &p); err != nil {
		return tools.Errorf("%v", err), nil
	}
	switch {
	case strings.TrimSpace(p.Command) == "":
		return tools.Errorf(`invalid arguments: "command" is required and must not be empty`), nil
	case strings.ContainsRune(p.Command, 0):
		return tools.Errorf(`invalid arguments: "command" contains a NUL byte`), nil
	case strings.ContainsRune(p.Workdir, 0):
		return tools.Errorf(`invalid arguments: "workdir" contains a NUL byte`), nil
	}
	dir, res := resolveWorkdir(call.Session.Cwd, p.Workdir)
	if res != nil {
		return res, nil
	}
	if p.RunInBackground {
		return t.e.spawn(call, p.Command, dir)
	}
	ms, res := timeoutMs(p.TimeoutMs, t.e.set)
	if res != nil {
		return res, nil
	}
	return t.e.run(ctx, call, p.Command, dir, ms)
}

func (t *outputTool) Call(_ context.Context, call *tools.Call) (*tools.Result, error) {
	if call == nil {
		return tools.Errorf("invalid call: no arguments"), nil
	}
	return t.e.output(call), nil
}

func (t *killTool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	if call == nil {
		return tools.Errorf("invalid call: no arguments"), nil
	}
	return t.e.kill(ctx, call)
}

// timeoutMs validates the timeoutMs argument; fractions round up.
func timeoutMs(v *float64, s settings) (int, *tools.Result) {
	if v == nil {
		return s.timeoutMs, nil
	}
	if math.IsNaN(*v) || *v <= 0 {
		return 0, tools.Errorf(`invalid arguments: "timeoutMs" must be a positive number of milliseconds, got %v`, *v)
	}
	if *v > float64(s.maxTimeoutMs) {
		return 0, tools.Errorf(`invalid arguments: "timeoutMs" is %v but the maximum is %d; use run_in_background for longer commands`, *v, s.maxTimeoutMs)
	}
	return int(math.Ceil(*v)), nil
}

// workdirOf is where a call runs: workdir when absolute, joined to the
// session's cwd when relative, else the session's cwd. It is "" when nothing
// absolute is known. It touches no files, so presentation can use it.
func workdirOf(sessionCwd, workdir string) string {
	switch {
	case workdir == "":
		return sessionCwd
	case filepath.IsAbs(workdir):
		return filepath.Clean(workdir)
	case sessionCwd != "":
		return filepath.Join(sessionCwd, workdir)
	}
	return ""
}

// resolveWorkdir returns the directory to run in and checks that it exists.
// "" means the runtime's own working directory (a call without a session).
func resolveWorkdir(sessionCwd, workdir string) (string, *tools.Result) {
	dir := workdirOf(sessionCwd, workdir)
	if dir == "" && workdir != "" {
		abs, err := filepath.Abs(workdir)
		if err != nil {
			return "", tools.Errorf("workdir %q: %v", workdir, err)
		}
		dir = abs
	}
	if dir == "" {
		return "", nil
	}
	what := "workdir " + strconv.Quote(workdir)
	switch {
	case workdir == "":
		what = "the session's working directory " + strconv.Quote(dir)
	case dir != workdir:
		what += " (" + dir + ")"
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", tools.Errorf("%s does not exist", what)
	case err != nil:
		return "", tools.Errorf("%s cannot be used: %v", what, err)
	case !fi.IsDir():
		return "", tools.Errorf("%s is not a directory", what)
	}
	return dir, nil
}
