package editor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/fileio"
)

// commands lists the commands with the optional arguments each one takes.
var commands = map[string][]string{
	"view":        {"view_range"},
	"create":      {"file_text"},
	"str_replace": {"old_str", "new_str"},
	"insert":      {"insert_line", "new_str"},
}

func (t *tool) call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p params
	if err := tools.Decode(call.Arguments, &p); err != nil {
		return tools.Errorf("%s", decodeHint(err)), nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.Command == "undo_edit" && t.undo != nil {
		return t.undoCall(ctx, call, &p)
	}
	if err := checkArgs(&p); err != nil {
		return tools.Errorf("%s", err), nil
	}
	path, err := checkPath(p.Path, call.Session.Cwd, p.Command)
	if err != nil {
		return tools.Errorf("%s", err), nil
	}
	var res *tools.Result
	// Under a sandbox the file work runs on a thread the kernel confines
	// to the session's policy (see sandbox.Policy.Run); the path check
	// first gives a clear message naming the path and the mode.
	if rerr := call.Session.Sandbox.Run(func() { res, err = t.dispatch(ctx, call.Session, &p, path) }); rerr != nil {
		return tools.Errorf("%s: %v", p.Command, rerr), nil
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return tools.Errorf("%s", err), nil
	}
	return res, nil
}

// dispatch runs one checked command on path.
func (t *tool) dispatch(ctx context.Context, sess tools.Session, p *params, path string) (*tools.Result, error) {
	if p.Command != "view" {
		if err := vet(sess.PathPolicy, path, p.Command); err != nil {
			return nil, err
		}
	}
	switch p.Command {
	case "view":
		return t.view(ctx, path, p.ViewRange)
	case "create":
		return t.create(ctx, sess.Key, path, *p.FileText)
	case "str_replace":
		newStr := ""
		if p.NewStr != nil {
			newStr = *p.NewStr
		}
		return t.strReplace(ctx, sess.Key, path, *p.OldStr, newStr)
	}
	return t.insert(ctx, sess.Key, path, *p.InsertLine, *p.NewStr)
}

// vet asks the session's path policy (its sandbox) whether path may be
// changed, as named and where it really leads: for create the place the
// new file would land, for an edit the file a symbolic link points to.
func vet(policy func(string, bool) error, path, command string) error {
	if policy == nil {
		return nil
	}
	if err := policy(path, true); err != nil {
		return err
	}
	real, err := fileio.Resolve(path)
	if command != "create" {
		real, err = filepath.EvalSymlinks(path)
	}
	if err != nil || real == path {
		return nil // a path that does not resolve fails in the command, with its own message
	}
	return policy(real, true)
}

// checkArgs checks what can be checked before touching the file system, so
// a malformed call never causes I/O.
func checkArgs(p *params) error {
	if len(p.ViewRange) == 0 {
		p.ViewRange = nil // some clients send [] for "not given"
	}
	allowed, ok := commands[p.Command]
	switch {
	case p.Command == "":
		return fmt.Errorf("command is required: one of view, create, str_replace, insert")
	case p.Command == "undo_edit":
		return fmt.Errorf("undo_edit is not supported; to revert an edit, use str_replace with old_str and new_str swapped")
	case !ok:
		return fmt.Errorf("unknown command %s: use view, create, str_replace or insert", quoteCut(p.Command, 40))
	}
	if extra := extraArgs(p, allowed); extra != "" {
		return fmt.Errorf("%s does not take %s; %s", p.Command, extra, usage(p.Command))
	}
	for name, s := range map[string]*string{"file_text": p.FileText, "old_str": p.OldStr, "new_str": p.NewStr} {
		if s != nil && strings.IndexByte(*s, 0) >= 0 {
			return fmt.Errorf("%s contains a NUL byte; this tool writes text files only", name)
		}
	}
	switch p.Command {
	case "view":
		return checkViewRange(p.ViewRange)
	case "create":
		if p.FileText == nil {
			return fmt.Errorf("create requires file_text, the content of the new file")
		}
	case "str_replace":
		switch {
		case p.OldStr == nil:
			return fmt.Errorf("str_replace requires old_str, the exact text to replace")
		case *p.OldStr == "":
			return fmt.Errorf("old_str is empty; give the exact text to replace (to add text without replacing any, use insert)")
		case p.NewStr != nil && *p.NewStr == *p.OldStr:
			return fmt.Errorf("old_str and new_str are the same; there is nothing to change")
		}
	case "insert":
		switch {
		case p.InsertLine == nil:
			return fmt.Errorf("insert requires insert_line, the line after which to insert (0 for the top of the file)")
		case *p.InsertLine < 0:
			return fmt.Errorf("insert_line must be 0 or more, got %d (0 inserts before the first line)", *p.InsertLine)
		case p.NewStr == nil:
			return fmt.Errorf("insert requires new_str, the lines to insert")
		case *p.NewStr == "":
			return fmt.Errorf("new_str is empty; there is nothing to insert")
		}
	}
	return nil
}

func checkViewRange(r []int) error {
	if r == nil {
		return nil
	}
	if len(r) != 2 {
		return fmt.Errorf("view_range must hold two line numbers [start, end], got %d", len(r))
	}
	start, end := r[0], r[1]
	switch {
	case start < 1:
		return fmt.Errorf("view_range start must be 1 or more, got %d (lines are numbered from 1)", start)
	case end != -1 && end < start:
		return fmt.Errorf("view_range end %d is before start %d; use -1 to read to the last line", end, start)
	}
	return nil
}

// extraArgs names arguments given to a command that does not use them. An
// empty string or array counts as not given, since some clients send every
// property.
func extraArgs(p *params, allowed []string) string {
	given := map[string]bool{
		"file_text":   p.FileText != nil && *p.FileText != "",
		"view_range":  len(p.ViewRange) > 0,
		"old_str":     p.OldStr != nil && *p.OldStr != "",
		"new_str":     p.NewStr != nil && *p.NewStr != "",
		"insert_line": p.InsertLine != nil,
	}
	for _, name := range allowed {
		delete(given, name)
	}
	var extra []string
	for _, name := range []string{"file_text", "view_range", "old_str", "new_str", "insert_line"} {
		if given[name] {
			extra = append(extra, name)
		}
	}
	return strings.Join(extra, " or ")
}

func usage(command string) string {
	switch command {
	case "view":
		return "view takes path and optionally view_range"
	case "create":
		return "create takes path and file_text"
	case "str_replace":
		return "str_replace takes path, old_str and new_str"
	}
	return "insert takes path, insert_line and new_str"
}

// decodeHint adds advice to an argument-decoding error for the names models
// often use instead of ours.
func decodeHint(err error) string {
	msg := err.Error()
	for wrong, right := range map[string]string{
		`"insert_text"`: "new_str", `"content"`: "file_text", `"file_path"`: "path", `"line"`: "insert_line",
	} {
		if strings.HasSuffix(msg, "unknown argument "+wrong) {
			return fmt.Sprintf("%s; this tool calls it %s", msg, right)
		}
	}
	return msg
}
