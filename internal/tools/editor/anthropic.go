package editor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shellport/shellport/internal/tools"
)

// Anthropic's text editor tool, in its two versions: the editor with the
// input Claude models were trained on.
const (
	// NameAnthropic is the canonical name of Anthropic's editor, and its
	// name in text_editor_20250728.
	NameAnthropic = "str_replace_based_edit_tool"
	// AnthropicType is the current version: view, create, str_replace
	// and insert, with max_characters.
	AnthropicType = "text_editor_20250728"
	// AnthropicType0429 is the first version named NameAnthropic: the
	// current one without max_characters.
	AnthropicType0429 = "text_editor_20250429"
	// AnthropicTypeV1 is the older version, named like our editor (Name),
	// with undo_edit.
	AnthropicTypeV1 = "text_editor_20250124"
)

// AnthropicConfig is the config of Anthropic's editor ({"tools":
// {"str_replace_based_edit_tool": {…}}} in the anthropic profile).
type AnthropicConfig struct {
	tools.Common
	// Type is the version: AnthropicType (the default), AnthropicType0429
	// or AnthropicTypeV1. Check sets the name to the version's.
	Type string `json:"type"`
	// MaxCharacters is the declaration's max_characters: a file view
	// shows about this many characters of numbered lines. Zero leaves it
	// out (a view is bounded by MaxOutputChars). AnthropicType only.
	MaxCharacters int `json:"max_characters"`
	// MaxOutputChars bounds the text of every other result, as in the
	// editor's own config.
	MaxOutputChars int `json:"maxOutputChars"`
}

var _ tools.Config = (*AnthropicConfig)(nil)

// DefaultAnthropicConfig is the config with every default filled in.
func DefaultAnthropicConfig() AnthropicConfig {
	return AnthropicConfig{Type: AnthropicType, MaxOutputChars: DefaultMaxOutputChars}
}

// Check refuses an unknown type, max_characters out of range or with the
// older version, and a name other than the version's, which Anthropic's
// API fixes; it then sets the name to the version's, so the runtime mounts
// the tool under it.
func (c *AnthropicConfig) Check() error {
	want := NameAnthropic
	switch c.Type {
	case AnthropicType, AnthropicType0429:
	case AnthropicTypeV1:
		want = Name
	default:
		return &tools.KeyError{Key: "type", Problem: fmt.Sprintf("must be %q, %q or %q, got %q", AnthropicType, AnthropicType0429, AnthropicTypeV1, c.Type)}
	}
	if c.MaxCharacters != 0 && c.Type != AnthropicType {
		return &tools.KeyError{Key: "max_characters", Problem: fmt.Sprintf("exists only in %s; %s has none", AnthropicType, c.Type)}
	}
	if c.Name != "" && c.Name != want {
		return &tools.KeyError{Key: "name", Problem: fmt.Sprintf("cannot be changed: Anthropic's API names %s %q (to serve the editor under another name, use another profile)", c.Type, want)}
	}
	if c.MaxCharacters != 0 {
		if err := tools.CheckRange("max_characters", c.MaxCharacters, 1, MaxMaxOutputChars, "characters"); err != nil {
			return err
		}
	}
	if err := tools.CheckRange("maxOutputChars", c.MaxOutputChars, MinMaxOutputChars, MaxMaxOutputChars, "characters"); err != nil {
		return err
	}
	c.Name = want
	return nil
}

// anthropicTool is the editor with Anthropic's input: insert takes its
// text as insert_text (what the models send) or new_str (what the older
// documentation says), and the older version has undo_edit.
type anthropicTool struct {
	*tool
	typ      string
	maxChars int
}

var (
	_ tools.Tool          = (*anthropicTool)(nil)
	_ tools.Native        = (*anthropicTool)(nil)
	_ tools.SessionCloser = (*anthropicTool)(nil)
)

// NewAnthropic returns Anthropic's editor in the version cfg.Type names
// (empty: AnthropicType; AnthropicType0429 is the same without
// max_characters). It is the editor of [New], with its guarantees
// and texts; the differences are the input (insert_text, and undo_edit in
// AnthropicTypeV1, which reverts the session's last edit of a file) and
// max_characters, which bounds a file view. In the Messages API's tools
// list it is {"type": …, "name": …, "max_characters": …}.
func NewAnthropic(host tools.Host, cfg AnthropicConfig) tools.Tool {
	if cfg.Type == "" {
		cfg.Type = AnthropicType
	}
	base := New(host, Config{MaxOutputChars: cfg.MaxOutputChars}).(*tool)
	base.name = NameAnthropic
	base.viewChars = cfg.MaxCharacters
	base.description = anthropicDescription(cfg.Type, cfg.MaxCharacters)
	base.schema = anthropicSchema
	if cfg.Type == AnthropicTypeV1 {
		base.name = Name
		base.schema = anthropicSchemaV1
		base.undo = newUndoLog()
	}
	base.shown = base.name // a vendor's tool keeps its name (renaming is refused)
	return &anthropicTool{tool: base, typ: cfg.Type, maxChars: cfg.MaxCharacters}
}

// Declaration is Anthropic's declaration of the tool, in the Messages API
// format only.
func (t *anthropicTool) Declaration(format string) map[string]any {
	if format != tools.FormatAnthropic {
		return nil
	}
	d := map[string]any{"type": t.typ, "name": t.name}
	if t.maxChars > 0 {
		d["max_characters"] = t.maxChars
	}
	return d
}

// CloseSession forgets the session's undo history.
func (t *anthropicTool) CloseSession(sessionKey string) {
	if t.undo != nil {
		t.undo.closeSession(sessionKey)
	}
}

func (t *anthropicTool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	args, err := insertText(call.Arguments)
	if err != nil {
		return tools.Errorf("%s", err), nil
	}
	return t.tool.Call(ctx, &tools.Call{ID: call.ID, Session: call.Session, Arguments: args})
}

func (t *anthropicTool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	if call == nil {
		return tools.Generic(t.name, call, res)
	}
	args, err := insertText(call.Arguments)
	if err != nil {
		return tools.Generic(t.name, call, res)
	}
	var p params
	if json.Unmarshal(args, &p) == nil && p.Command == "undo_edit" && p.Path != "" {
		pr := tools.Presentation{Title: "Undo the last edit of " + p.Path, Kind: "edit", RawInput: call.Arguments, Locations: []tools.Location{{Path: p.Path}}}
		if res != nil {
			pr.Status = tools.StatusOf(res)
			pr.Content = []tools.ContentBlock{tools.TextBlock(res.Text)}
		}
		return pr
	}
	pr := present(t.shown, &tools.Call{ID: call.ID, Session: call.Session, Arguments: args}, res)
	if pr.Kind == "other" {
		pr.Title = t.name // the generic card names the tool
	}
	return pr
}

// anthropicParams are the editor's arguments plus insert_text.
type anthropicParams struct {
	params
	InsertText *string `json:"insert_text"`
}

// insertText reads the arguments as strictly as the editor does and
// returns them in the editor's own form: insert_text becomes new_str (both
// at once must agree).
func insertText(args json.RawMessage) (json.RawMessage, error) {
	var p anthropicParams
	if err := tools.Decode(args, &p); err != nil {
		return nil, errors.New(decodeHint(err))
	}
	if p.InsertText != nil {
		if p.NewStr != nil && *p.NewStr != *p.InsertText {
			return nil, errors.New("invalid arguments: insert_text and new_str are both given and differ; give the text to insert once, as insert_text")
		}
		p.NewStr = p.InsertText
	}
	return json.Marshal(p.params)
}
