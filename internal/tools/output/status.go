package output

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// Status lines. Each is one line of a result; docs/TOOLS.md quotes them.
const (
	lineNoOutput   = "[no output]"
	prefixTimedOut = "[timed out after "
	prefixSignal   = "[killed by signal: "
	prefixExit     = "[exit code: "
	prefixSpill    = "[output truncated; full output: "
	prefixUnsaved  = "[output truncated; the full output could not be saved: "
)

// ToolResult writes the result in the dialect (see the package doc): the
// opening lines, the output or [no output], the status lines, and the
// structuredContent with every key of MetaKeys.
func (r Result) ToolResult() *tools.Result {
	var status []string
	if n := r.Output.InvalidUTF8; n > 0 {
		status = append(status, InvalidNote(n))
	}
	if r.TimedOut && r.WaitingForInput {
		status = append(status, "[the command was waiting for input from the terminal, which this tool cannot type; give the input through a pipe, a here-document or a file, or use the program's non-interactive option]")
	}
	if r.TimedOut {
		status = append(status, prefixTimedOut+Duration(r.Timeout)+"]")
	}
	switch {
	case r.Signal != "":
		status = append(status, prefixSignal+r.Signal+"]")
	case r.ExitCode != nil && *r.ExitCode != 0:
		status = append(status, prefixExit+strconv.Itoa(*r.ExitCode)+"]")
	}
	status = append(status, r.Closing...)
	if r.Output.Truncated {
		if r.Output.SpillPath != "" {
			status = append(status, prefixSpill+r.Output.SpillPath+"]")
		} else {
			reason := "unknown error"
			if r.Output.SpillErr != nil {
				reason = strings.ReplaceAll(r.Output.SpillErr.Error(), "\n", " ")
			}
			status = append(status, prefixUnsaved+reason+"]")
		}
	}

	var b strings.Builder
	for _, line := range r.Opening {
		b.WriteString(line + "\n")
	}
	body := r.Output.Body
	if body == "" && len(status) == 0 {
		body = lineNoOutput
	}
	b.WriteString(body)
	if len(status) > 0 {
		endLine(&b)
		b.WriteString(strings.Join(status, "\n"))
	}
	return &tools.Result{
		Text:       strings.ToValidUTF8(b.String(), "\uFFFD"),
		IsError:    r.IsError,
		Structured: r.Meta(),
		Raw:        r.Output.Body,
	}
}

// InvalidNote is the status line telling that n bytes of the output were
// not valid UTF-8.
func InvalidNote(n int) string {
	return fmt.Sprintf("[%s of the output %s not valid UTF-8 and %s replaced with U+FFFD]", plural(n, "byte", "bytes"), wasWere(n), wasWere(n))
}

// Meta is the structuredContent of the result: every key of MetaKeys.
func (r Result) Meta() map[string]any {
	// Every value is decided before the map is made: the map holds eight
	// keys, as many as a small map's one group, and assigning to a key of
	// a full small map (even one it holds) grows it into a table, which
	// tripled its cost (5 allocations instead of 2; issue 16).
	var exitCode, signal, spillPath any
	if r.Signal != "" {
		signal = r.Signal
	} else if r.ExitCode != nil {
		exitCode = *r.ExitCode
	}
	if r.Output.SpillPath != "" {
		spillPath = r.Output.SpillPath
	}
	return map[string]any{
		"exitCode":        exitCode,
		"signal":          signal,
		"timedOut":        r.TimedOut,
		"truncated":       r.Output.Truncated,
		"spillPath":       spillPath,
		"shellReset":      r.ShellReset,
		"waitingForInput": r.WaitingForInput,
		"invalidUtf8":     r.Output.InvalidUTF8,
	}
}

// Status is what the status lines at the end of a result text report.
type Status struct {
	// ExitCode is from [exit code: N]: 0 without one, and -1 with
	// [killed by signal: NAME], whose name is Signal.
	ExitCode int
	Signal   string
	// TimedOut and Timeout come from [timed out after D].
	TimedOut bool
	Timeout  time.Duration
	// Truncated and SpillPath come from [output truncated; full output:
	// PATH]; SpillPath is empty when the full output could not be saved.
	Truncated bool
	SpillPath string
	// Body is the text before the status lines, with the newline that
	// separated them; empty for [no output].
	Body string
}

// Kinds of status lines, in the order they are written. Lines a tool adds
// (Closing) sit between exit and truncated and are not parsed.
const (
	kindTimedOut = iota
	kindExit
	kindTruncated
	kindEnd
)

// ParseStatus reads the status lines at the end of a result text, the
// inverse of ToolResult for the common lines: one per line, in their
// order, at most one of exit code and signal. Lines a tool adds of its own
// end the parse. Output that ends in lines shaped like status lines which
// could precede the real ones is indistinguishable from them, so prefer a
// result's structured facts when it has them.
func ParseStatus(text string) Status {
	var st Status
	if text == lineNoOutput {
		return st
	}
	below := kindEnd
	rest := text
	for rest != "" {
		i := strings.LastIndexByte(rest, '\n')
		next := st
		kind, ok := next.parseLine(rest[i+1:])
		if !ok || kind >= below {
			break
		}
		below, st = kind, next
		if i < 0 {
			rest = ""
			break
		}
		rest = rest[:i]
	}
	st.Body = rest
	if rest != text && rest != "" {
		st.Body += "\n" // the line end before the first status line
	}
	if st.Signal != "" {
		st.ExitCode = -1
	}
	return st
}

// parseLine applies one status line to st and says which kind it was.
func (st *Status) parseLine(line string) (int, bool) {
	switch {
	case !strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "]"):
		return 0, false
	case strings.HasPrefix(line, prefixTimedOut):
		d, ok := parseDuration(strings.TrimSuffix(strings.TrimPrefix(line, prefixTimedOut), "]"))
		if !ok {
			return 0, false
		}
		st.TimedOut, st.Timeout = true, d
		return kindTimedOut, true
	case strings.HasPrefix(line, prefixSignal):
		name := strings.TrimSuffix(strings.TrimPrefix(line, prefixSignal), "]")
		if name == "" || strings.ContainsAny(name, "[]") {
			return 0, false
		}
		st.Signal = name
		return kindExit, true
	case strings.HasPrefix(line, prefixExit):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, prefixExit), "]"))
		if err != nil {
			return 0, false
		}
		st.ExitCode = n
		return kindExit, true
	case strings.HasPrefix(line, prefixSpill):
		st.Truncated = true
		st.SpillPath = strings.TrimSuffix(strings.TrimPrefix(line, prefixSpill), "]")
		return kindTruncated, true
	case strings.HasPrefix(line, prefixUnsaved):
		st.Truncated = true
		return kindTruncated, true
	}
	return 0, false
}

// Duration renders a timeout for people: "120 seconds", "1.5 seconds",
// "1 second", "500 ms".
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d == time.Second:
		return "1 second"
	case d%time.Second == 0:
		return fmt.Sprintf("%d seconds", int64(d/time.Second))
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".") + " seconds"
}

// parseDuration reads what Duration writes.
func parseDuration(s string) (time.Duration, bool) {
	num, unit, ok := strings.Cut(s, " ")
	if !ok || num == "" || strings.ContainsAny(num, "+-eE") {
		return 0, false
	}
	switch unit {
	case "ms":
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n < 0 || n >= 1000 {
			return 0, false
		}
		return time.Duration(n) * time.Millisecond, true
	case "second", "seconds":
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || f < 1 || f > 1e9 || (unit == "second") != (num == "1") {
			return 0, false
		}
		return time.Duration(f*1000+0.5) * time.Millisecond, true
	}
	return 0, false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Commas(int64(n)) + " " + many
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
