// Package tools holds what every shellport tool shares: the [Tool] interface,
// the call and result types, and the presentation data a UI renders.
//
// A tool knows nothing about JSON-RPC, ctypes or Python. The runtime decodes
// a request, finds the tool by name and hands it a [Call]; the tool returns a
// [Result] whose Text is exactly what the model should read.
//
// Each tool lives in its own subpackage (tools/bash, tools/persistent,
// tools/editor) with one constructor.
package tools

import (
	"context"
	"encoding/json"

	"github.com/shellport/shellport/internal/sandbox"
)

// Tool is one callable tool. Implementations must be safe for concurrent use:
// the runtime runs calls concurrently, across sessions and within one. A tool
// that needs order (persistent bash) serialises its own calls.
type Tool interface {
	// Name is the canonical name ("bash", "str_replace_editor"). The runtime
	// may expose the tool under another name taken from config.
	Name() string
	// Description is the default model-facing description.
	Description() string
	// InputSchema is the JSON Schema (draft 2020-12 subset) of the arguments:
	// an object with properties, required and additionalProperties false.
	InputSchema() json.RawMessage
	// Call runs the tool. A non-nil error is an infrastructure failure and
	// becomes an isError result; anything the model should simply read
	// (a command that exits non-zero, an edit that found no match) is a
	// Result. Call must return promptly once ctx is done.
	Call(ctx context.Context, call *Call) (*Result, error)
	// Present renders a call, and its result when res is not nil, for a UI.
	// It is a pure function of its inputs, safe to run again on replay, and
	// never panics on malformed arguments: it falls back to a generic card.
	Present(call *Call, res *Result) Presentation
}

// SessionCloser is implemented by tools that keep per-session state (a live
// shell, background tasks, their logs and notices). The runtime calls
// CloseSession with the session's Key once every call of that session has
// returned; the tool must kill what the session started and return only
// when it is gone (bounded by the tool's own kill timeouts). The runtime
// never calls the tool with that key again, so nothing of the session can
// be reached after it: state keyed by Key dies with the session object, even
// when a new session reuses its ID.
type SessionCloser interface {
	CloseSession(sessionKey string)
}

// Closer is implemented by tools that hold resources for the runtime's life.
// The runtime calls Close once, at shutdown; it must kill every process the
// tool started.
type Closer interface {
	Close() error
}

// Call is one invocation of a tool.
type Call struct {
	// ID is the client's callId when it gave one, else a runtime-made id.
	ID string
	// Session is the calling session. Session.ID is empty for a call made
	// without a session.
	Session Session
	// Arguments are the raw JSON arguments as the model produced them.
	Arguments json.RawMessage
	// Observe, when not nil, receives the call's output while the command
	// runs: the clean text the model will read, in order (a caller asked
	// for a live stream, issue 17). The bash tools hand it to their output
	// capture (output.Options.Observe); other tools never call it. It
	// must not keep the slice.
	Observe func(text []byte)
}

// Session is what a tool may know about the calling session.
type Session struct {
	// ID is the client-visible id ("task-17"). A closed session's id may be
	// reused by a new session, so never key state by it: use Key.
	ID string
	// Key identifies this session object for the runtime's life: a new
	// session with the ID of a closed one has another Key. Per-session
	// state (shells, tasks, ownership, notices) is keyed by it. Empty for a
	// call made without a session.
	Key string
	// Cwd is the session's absolute working directory.
	Cwd string
	// Env holds extra environment variables for processes the session starts,
	// applied over its base environment.
	Env map[string]string
	// BaseEnv, when not nil, is the environment the session's processes
	// start from instead of the runtime's own: the client's environment as
	// of the session's creation ("baseEnv" in session/new), so commands see
	// the host's current variables whichever carrier runs the runtime.
	BaseEnv []string
	// PathPolicy, when set, is asked before a file tool reads (write false)
	// or changes (write true) a path: with the path as named (absolute and
	// cleaned) and again with symbolic links resolved. A non-nil error
	// refuses the operation and its text reaches the model. The session's
	// sandbox sets it; nil allows every path. (A fileio.Policy.)
	PathPolicy func(path string, write bool) error
	// Sandbox is the session's sandbox, resolved when the session was
	// made (or its sandbox last changed): tools that start processes apply
	// its Restrictions to each one, and the file tools run their file
	// operations through its Run. Nil is full access with nothing
	// configured.
	Sandbox *sandbox.Policy
}

// Base returns the environment the session's processes start from: BaseEnv
// when the client sent one, else fallback (the runtime's os.Environ()).
func (s Session) Base(fallback []string) []string {
	if s.BaseEnv != nil {
		return s.BaseEnv
	}
	return fallback
}

// Environ returns the session's base environment (see Base) with the
// session's variables set over it, in a stable order.
func (s Session) Environ(fallback []string) []string {
	return mergeEnv(s.Base(fallback), s.Env)
}

// Overlay returns env with the session's variables set over it.
func (s Session) Overlay(env []string) []string {
	return mergeEnv(env, s.Env)
}

// Host is what the runtime gives a tool at construction.
type Host struct {
	// Notify queues a short notice for the session with the given Key (a
	// background task finished). Notices for a session that has closed are
	// dropped, so none reaches a later session with the same ID. It never
	// blocks for long. It may be nil in tests.
	Notify func(sessionKey, text string)
	// SpillDir is a directory private to this runtime where tools write full
	// outputs that were too long to return. It exists; tools create files in
	// it and never remove the directory.
	SpillDir string
	// Names maps canonical tool names to the names the model sees, which
	// config may change ({"tools": {"bash_output": {"name": "read_task"}}}).
	// Every model-facing text that names a tool takes the name from here
	// (see Name). Nil in tests: every tool keeps its canonical name.
	Names map[string]string
}

// Name returns the name the model sees for the tool with this canonical
// name. Texts name tools only through it, so a renamed tool is never
// called by its old name.
func (h Host) Name(canonical string) string {
	if n := h.Names[canonical]; n != "" {
		return n
	}
	return canonical
}

// Notice queues text for the session with sessionKey when h.Notify is set.
func (h Host) Notice(sessionKey, text string) {
	if h.Notify != nil {
		h.Notify(sessionKey, text)
	}
}

// Result is what a call returns.
type Result struct {
	// Text is exactly what the model reads.
	Text string
	// IsError marks infrastructure failures and invalid arguments only.
	IsError bool
	// Structured carries machine-readable facts (MCP structuredContent):
	// exitCode, signal, timedOut, truncated, spillPath, shellReset, taskId…
	Structured map[string]any
	// Raw is a command's output for a UI's terminal view: the output part
	// of Text, without the status lines after it. Empty when the tool has
	// none.
	Raw string
}

// Errorf returns an isError result with a formatted message. Use it for
// invalid arguments; return a Go error for failures of the runtime itself.
func Errorf(format string, args ...any) *Result {
	return &Result{Text: sprintf(format, args...), IsError: true}
}

// Presentation is ACP tool-call data for a UI: what a client needs for the
// tool_call and its final tool_call_update. Field names follow ACP.
type Presentation struct {
	Title     string         `json:"title"`
	Kind      string         `json:"kind"`             // read, edit, execute, other, …
	Status    string         `json:"status,omitempty"` // completed or failed once a result exists
	Content   []ContentBlock `json:"content,omitempty"`
	Locations []Location     `json:"locations,omitempty"`
	RawInput  any            `json:"rawInput,omitempty"`
	RawOutput any            `json:"rawOutput,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// ContentBlock is one ACP tool-call content item: {"type":"content",
// "content":{"type":"text","text":…}} or {"type":"diff","path","oldText","newText"}.
type ContentBlock struct {
	Type    string    `json:"type"`
	Content *TextPart `json:"content,omitempty"`
	Path    string    `json:"path,omitempty"`
	OldText *string   `json:"oldText,omitempty"`
	NewText *string   `json:"newText,omitempty"`
}

// TextPart is ACP/MCP text content.
type TextPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Location is a file (and line) a call touches.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// TextBlock returns a content block holding text.
func TextBlock(text string) ContentBlock {
	return ContentBlock{Type: "content", Content: &TextPart{Type: "text", Text: text}}
}

// DiffBlock returns a diff content block. oldText nil means a new file.
func DiffBlock(path string, oldText *string, newText string) ContentBlock {
	return ContentBlock{Type: "diff", Path: path, OldText: oldText, NewText: &newText}
}

// Generic is the fallback presentation for a call whose arguments cannot be
// read: the tool name as title, kind "other", the raw arguments as input.
func Generic(name string, call *Call, res *Result) Presentation {
	p := Presentation{Title: name, Kind: "other"}
	if call != nil && len(call.Arguments) > 0 && json.Valid(call.Arguments) {
		p.RawInput = call.Arguments
	}
	if res != nil {
		p.Status = StatusOf(res)
		if res.Text != "" {
			p.Content = []ContentBlock{TextBlock(res.Text)}
		}
	}
	return p
}

// RunningPresenter is a tool whose calls stream output (issue 17): its
// running update is what a UI applies to the call's card for each piece of
// live output. For a tool without it the update is its call card's title
// and kind with status in_progress (Running).
type RunningPresenter interface {
	PresentRunning(call *Call, text string) Presentation
}

// Running is the running update of a call whose card is p and which draws
// no terminal: p's title and kind, status in_progress, no content (an
// update's content would replace the card's).
func Running(p Presentation) Presentation {
	return Presentation{Title: p.Title, Kind: p.Kind, Status: "in_progress"}
}

// StatusOf returns the ACP status of a finished call.
func StatusOf(res *Result) string {
	if res.IsError {
		return "failed"
	}
	return "completed"
}

// Serial is implemented by tools whose calls within one session must run one
// at a time, in the order the client sent them (persistent bash). The runtime
// queues such calls per session and tool before they reach Call, so a client
// that pipelines three calls sees them run first to last.
type Serial interface {
	SerialPerSession()
}

// Quick is implemented by tools whose calls do bounded work in the runtime's
// own process (file reads and writes) and never wait for a process, a timer
// or the client: the file editor. A caller blocked on such a call in the
// same process (the C ABI's shellport_start) runs it on its own thread
// rather than waking a worker goroutine and being woken by it (issue 16).
// A tool that can wait for long must not implement it: the blocked caller
// could not be interrupted until the call returns.
type Quick interface {
	QuickCalls()
}

// Runner is implemented by tools that keep processes per session (a
// persistent shell, background tasks). Running says what the session with
// sessionKey has running now ("a persistent shell", "2 background
// tasks"), or "" when nothing: the runtime refuses to change a session's
// sandbox while anything of it runs, since a running process keeps the
// sandbox it started with.
type Runner interface {
	Running(sessionKey string) string
}
