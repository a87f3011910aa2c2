// Package editor is shellport's str_replace_editor tool: view, create and
// edit text files without ever damaging them.
//
// The tool has four commands. view prints a file with cat -n style line
// numbers (tabs shown raw, so a copied line is a valid old_str) or lists a
// directory two levels deep (a view_range then selects entries of the
// listing, and a cut listing names the range that continues it). create
// writes a new file. str_replace replaces one unique literal occurrence of
// old_str. insert adds whole lines after a given line.
//
// Every byte outside an edit is kept: tabs, CRLF line endings (new text takes
// the file's ending), a UTF-8 byte order mark and a missing final newline.
// An ordinary file is replaced atomically: a temporary file in the same
// directory gets the content, the owner, the mode and the extended
// attributes, is synced and renamed over the original. A file with several
// hard links, a mount point (a bind-mounted file) and a file whose owner or
// attributes a new file cannot be given are written in place instead,
// after a synced backup copy (see fileio.Locked.Save). A symlink is
// followed and stays a link. Binary files and files that are not valid
// UTF-8 are never modified.
//
// The file access is fileio's, shared with apply_patch: edits and patches
// of one file are serialised across the whole process (every tool
// instance, session and runtime, and every name of the file) and, through
// an advisory lock on the file, with other shellport processes. Just before
// writing, an edit checks that the file is still exactly what it read; if
// another program changed it, the edit is refused and that change kept.
//
// Large files are handled without per-line allocations: view streams the
// file through a fixed buffer, and an edit reads the file once and writes
// the untouched head and tail straight from that buffer.
package editor

import (
	"context"
	"encoding/json"

	"github.com/shellport/shellport/internal/tools"
)

// Name is the canonical tool name.
const Name = "str_replace_editor"

// DefaultMaxOutputChars bounds the text of one result when the config does
// not set MaxOutputChars.
const DefaultMaxOutputChars = 16000

// MinMaxOutputChars is the smallest output bound the tool accepts, so the
// closing notes of a view (which name the next range) always fit beside at
// least some lines. MaxMaxOutputChars is the largest.
const (
	MinMaxOutputChars = 1000
	MaxMaxOutputChars = 100_000_000
)

// Config is the editor's config ({"tools": {"str_replace_editor": {…}}}).
type Config struct {
	tools.Common
	// MaxOutputChars bounds the text of one result.
	MaxOutputChars int `json:"maxOutputChars"`
}

var _ tools.Config = (*Config)(nil)

// DefaultConfig is the config with every default filled in.
func DefaultConfig() Config { return Config{MaxOutputChars: DefaultMaxOutputChars} }

// Check refuses a MaxOutputChars out of range: a bound below
// [MinMaxOutputChars] is refused, never silently raised.
func (c *Config) Check() error {
	return tools.CheckRange("maxOutputChars", c.MaxOutputChars, MinMaxOutputChars, MaxMaxOutputChars, "characters")
}

// New returns the editor tool. A zero cfg.MaxOutputChars means
// [DefaultMaxOutputChars]; the runtime passes a checked config. The host
// gives the names of tools the editor's texts mention; the editor starts
// no processes and never spills output.
func New(host tools.Host, cfg Config) tools.Tool {
	maxOut := cfg.MaxOutputChars
	if maxOut <= 0 {
		maxOut = DefaultMaxOutputChars
	}
	return &tool{name: Name, shown: host.Name(Name), maxOut: max(maxOut, MinMaxOutputChars), description: DefaultDescription, schema: inputSchema, shell: host.Name("bash")}
}

// params are the arguments of one call. Pointers tell "not given" apart from
// an empty value.
type params struct {
	Command    string  `json:"command"`
	Path       string  `json:"path"`
	FileText   *string `json:"file_text"`
	ViewRange  []int   `json:"view_range"`
	OldStr     *string `json:"old_str"`
	NewStr     *string `json:"new_str"`
	InsertLine *int    `json:"insert_line"`
}

// tool implements [tools.Tool]. It keeps no state of its own: edits of one
// file are serialised process-wide (see fileio.OpenLocked), whichever tool,
// session or runtime makes them.
type tool struct {
	name        string // the canonical name: Name, or Anthropic's (see NewAnthropic)
	maxOut      int
	description string
	schema      string
	shell       string // the name of the bash tool, which texts suggest for what the editor does not do
	shown       string // the name the model sees, for a generic card
	// viewChars, when not zero, is the budget of a file view's numbered
	// lines instead of maxOut (Anthropic's max_characters).
	viewChars int
	// undo keeps the edits undo_edit can revert; nil when the tool has
	// no undo_edit.
	undo *undoLog
}

var _ tools.Tool = (*tool)(nil)

func (t *tool) Name() string                 { return t.name }
func (t *tool) Description() string          { return t.description }
func (t *tool) InputSchema() json.RawMessage { return json.RawMessage(t.schema) }
func (t *tool) Present(call *tools.Call, res *tools.Result) tools.Presentation {
	return present(t.shown, call, res)
}

// Call runs one command. Problems with the arguments or the file come back as
// isError results; a Go error means the call was cancelled or the runtime
// itself failed.
func (t *tool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	return t.call(ctx, call)
}
