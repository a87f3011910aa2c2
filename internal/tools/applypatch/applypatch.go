// Package applypatch is shellport's apply_patch tool: it applies V4A
// patches with the guarantees of the editor, through the one engine in
// internal/patch. The tool comes in two shapes that share everything but
// their arguments:
//
//   - [New]: a function tool for shellport's own profiles, for models that
//     prefer patches. Its argument is the multi-file "*** Begin Patch"
//     envelope Codex-style agents write: {"patch": "*** Begin Patch\n…"}.
//   - [NewOpenAI]: the Responses API's native apply_patch tool. Its argument
//     is one operation, exactly as the model's apply_patch_call carries it:
//     {"operation": {"type": "update_file", "path": …, "diff": …}}.
//
// A patch is applied whole or not at all. The result's text tells the
// model what happened (the files added, updated, moved and deleted with the
// lines of each change, or which hunk of which file did not fit and why),
// and its structured content carries "status" ("completed" or "failed"),
// the value an apply_patch_call_output item needs, and "files".
//
// Relative paths resolve against the session's working directory; a
// session's PathPolicy (its sandbox) vets every path the patch changes.
package applypatch

import (
	"context"
	"encoding/json"

	"github.com/shellport/shellport/internal/tools"
)

// Name is the canonical name of both shapes.
const Name = "apply_patch"

// Config is apply_patch's config: it has no settings of its own.
type Config = tools.CommonConfig

// New returns apply_patch as a function tool taking {"patch": "*** Begin
// Patch …"}, for shellport's own profiles. Its description is
// [DefaultDescription]; the host is not used.
func New(host tools.Host, cfg Config) tools.Tool {
	return newTool(envelopeShape, DefaultDescription, host.Name(Name), host.Name("bash"))
}

// NewOpenAI returns apply_patch in the Responses API's native shape,
// taking {"operation": {"type", "path", "diff"}}. Its description is
// [OpenAIDescription], which only clients that list it as a function tool
// see (OpenAI's models know the native tool already).
func NewOpenAI(host tools.Host, cfg Config) tools.Tool {
	return newTool(operationShape, OpenAIDescription, host.Name(Name), host.Name("bash"))
}

// shape tells the two argument forms apart.
type shape int

const (
	envelopeShape shape = iota
	operationShape
)

// tool implements [tools.Tool] for both shapes. It keeps no state: the
// engine locks the files it changes, across tools and sessions.
type tool struct {
	shape       shape
	description string
	name        string // the name the model sees, for a generic card
	shell       string // the name of the tool that runs commands, which refusals suggest
}

var _ tools.Tool = (*tool)(nil)

func newTool(s shape, description, name, shell string) *tool {
	return &tool{shape: s, description: description, name: name, shell: shell}
}

func (t *tool) Name() string        { return Name }
func (t *tool) Description() string { return t.description }

func (t *tool) InputSchema() json.RawMessage {
	if t.shape == operationShape {
		return json.RawMessage(openAISchema)
	}
	return json.RawMessage(envelopeSchema)
}

// Call applies the patch. A patch that does not apply is a result with
// status "failed" (and isError, as for the editor's failed edits); a Go
// error means the call was cancelled before anything was written.
func (t *tool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	return t.call(ctx, call)
}

func (t *tool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	return t.present(call, res)
}
