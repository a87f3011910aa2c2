package output

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/shellport/shellport/internal/tools"
)

// Command is what a bash card shows of a call: the exact command, the
// model's description of it (one-shot only), the terminal's id (the call
// id) and the directory it runs in ("" when unknown).
type Command struct {
	Command     string
	Description string
	TerminalID  string
	Cwd         string
}

// Card is the ACP presentation of a bash call, the same in both profiles:
// titled with the exact command, kind execute, the command as raw input,
// the description as a text block above it. Before the result it carries
// _meta.terminal_info for clients with terminals. With a result its status
// is failed when the command did not succeed (tools.CommandStatus), it
// holds the result text in a fenced console block for clients without
// terminals (trailing blank lines trimmed), rawOutput {output, exit_code,
// signal[, timed_out]} with the output as the model read it (not trimmed)
// and _meta.terminal_exit. Exit code and signal come
// from the result's facts, or from its status lines when it has none (a
// replayed result). docs/TOOLS.md says which fields a bridge sends in
// terminal mode and which in fallback mode.
func Card(c Command, res *tools.Result) tools.Presentation {
	p := tools.Presentation{Title: c.Command, Kind: "execute", RawInput: c.Command}
	if c.Description != "" {
		p.Content = []tools.ContentBlock{tools.TextBlock(c.Description)}
	}
	if res == nil {
		info := map[string]any{"terminal_id": c.TerminalID}
		if c.Cwd != "" {
			info["cwd"] = c.Cwd
		}
		p.Meta = map[string]any{"terminal_info": info}
		return p
	}
	code, sig, timedOut, body := exitOf(res)
	p.Status = tools.CommandStatus(res, code, sig, timedOut || code == nil && sig == nil && !res.IsError)
	output := res.Raw
	if output == "" {
		output = body // a replayed result without Raw: the best there is
	}
	raw := map[string]any{"output": output, "exit_code": code, "signal": sig}
	if timedOut {
		raw["timed_out"] = true
	}
	p.RawOutput = raw
	p.Meta = map[string]any{"terminal_exit": map[string]any{"terminal_id": c.TerminalID, "exit_code": code, "signal": sig}}
	p.Content = append(p.Content, tools.TextBlock(Fence(trimBlankLines(res.Text))))
	return p
}

// Running is the update of a bash card while its command runs: status
// in_progress and _meta.terminal_output with the newest output (a piece
// of the live stream), for a client that draws the terminal live. It
// carries no content, so the card's (the description) stays.
func Running(c Command, text string) tools.Presentation {
	return tools.Presentation{
		Title:  c.Command,
		Kind:   "execute",
		Status: "in_progress",
		Meta:   map[string]any{"terminal_output": map[string]any{"terminal_id": c.TerminalID, "data": text}},
	}
}

// trimBlankLines drops the blank lines (empty or only spaces) at the end
// of text, and its final newline.
func trimBlankLines(text string) string {
	for {
		text = strings.TrimRight(text, "\n")
		i := strings.LastIndexByte(text, '\n')
		if strings.TrimSpace(text[i+1:]) != "" {
			return text
		}
		if i < 0 {
			return ""
		}
		text = text[:i]
	}
}

// exitOf returns the exit code and signal for terminal_exit (nil when
// unknown; never a negative code), whether the command timed out, and the
// text before the status lines. Facts win over the text, which output can
// imitate.
func exitOf(res *tools.Result) (code, sig any, timedOut bool, body string) {
	st := ParseStatus(res.Text)
	if s := res.Structured; s != nil {
		if n, ok := toInt(s["exitCode"]); ok && n >= 0 {
			code = n
		}
		if name, ok := s["signal"].(string); ok && name != "" {
			code, sig = nil, name
		}
		timedOut, _ = s["timedOut"].(bool)
		return code, sig, timedOut, st.Body
	}
	if res.IsError {
		return nil, nil, false, st.Body // no process ran, or none was seen to end
	}
	if st.Signal != "" {
		return nil, st.Signal, st.TimedOut, st.Body
	}
	return st.ExitCode, nil, st.TimedOut, st.Body
}

// toInt reads a number that may have been through JSON.
func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<31 {
			return int(n), true
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i), true
		}
	}
	return 0, false
}

// Fence wraps text in a console code block whose fence is longer than any
// run of backticks inside it.
func Fence(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return f + "console\n" + text + f
}
