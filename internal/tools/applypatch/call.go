package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shellport/shellport/internal/patch"
	"github.com/shellport/shellport/internal/tools"
)

// envelopeArgs are the function tool's arguments.
type envelopeArgs struct {
	Patch *string `json:"patch"`
}

// operationArgs are the native shape's arguments.
type operationArgs struct {
	Operation *operation `json:"operation"`
}

// operation is an apply_patch_call's operation. Diff is absent (or null)
// for delete_file.
type operation struct {
	Type string  `json:"type"`
	Path string  `json:"path"`
	Diff *string `json:"diff"`
}

func (t *tool) call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	p, err := t.parse(call.Arguments)
	if err != nil {
		return failed(err), nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Under a sandbox the whole patch (reads, checks, writes and undo) runs
	// on a thread the kernel confines to the session's policy; the policy
	// check first gives a clear message naming the path and the mode.
	var res *patch.Result
	if rerr := call.Session.Sandbox.Run(func() {
		res, err = patch.Apply(ctx, p, patch.Options{Cwd: call.Session.Cwd, Policy: call.Session.PathPolicy, Shell: t.shell})
	}); rerr != nil {
		return failed(rerr), nil
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return failed(err), nil
	}
	return completed(res), nil
}

// parse decodes the arguments of either shape into a patch.
func (t *tool) parse(args json.RawMessage) (*patch.Patch, error) {
	if t.shape == operationShape {
		var a operationArgs
		if err := tools.Decode(args, &a); err != nil {
			return nil, decodeHint(err, `the arguments are {"operation": {"type": …, "path": …, "diff": …}}`)
		}
		if a.Operation == nil {
			return nil, fmt.Errorf(`operation is required: {"type": "create_file", "update_file" or "delete_file", "path": the file, "diff": the V4A diff}`)
		}
		diff := ""
		if a.Operation.Diff != nil {
			diff = *a.Operation.Diff
		}
		return patch.ParseOperation(a.Operation.Type, a.Operation.Path, diff)
	}
	var a envelopeArgs
	if err := tools.Decode(args, &a); err != nil {
		return nil, decodeHint(err, `this tool takes one argument, "patch"`)
	}
	if a.Patch == nil {
		return nil, fmt.Errorf("patch is required: the patch text, from the line *** Begin Patch to the line *** End Patch")
	}
	return patch.Parse(*a.Patch)
}

// decodeHint adds what the arguments should look like to a decoding error
// about an unknown argument.
func decodeHint(err error, shape string) error {
	if strings.Contains(err.Error(), "unknown argument") {
		return fmt.Errorf("%w; %s", err, shape)
	}
	return err
}

// failed is the result of a patch that was not applied.
func failed(err error) *tools.Result {
	head := "The patch was not applied; no file was changed."
	st := map[string]any{"status": "failed"}
	if errors.Is(err, patch.ErrPartial) {
		head = "The patch failed partway, and undoing it failed too; some files may hold patched content."
		st["partial"] = true
	}
	return &tools.Result{Text: head + "\n" + err.Error(), IsError: true, Structured: st}
}
