package editor

// QuickCalls marks the editor as tools.Quick: its calls read and write
// files in the runtime's process and wait for no process, so a caller
// blocked on one may run it on its own thread (issue 16).
func (t *tool) QuickCalls() {}

// QuickCalls marks the Anthropic-shaped editor as tools.Quick, like the
// editor it wraps.
func (t *anthropicTool) QuickCalls() {}
