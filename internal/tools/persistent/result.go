package persistent

import (
	"fmt"
	"strings"
	"time"

	"github.com/shellport/shellport/internal/pty"
	"github.com/shellport/shellport/internal/tools"
)

// lostShell records a shell found dead when a call arrived.
type lostShell struct{ exit pty.ExitStatus }

// render turns an outcome into the model's text and the structured facts.
// The text is the output exactly, followed by one bracketed line per fact
// the model must know; a zero status with nothing to report adds nothing.
func render(o outcome, lost *lostShell, cwd string, timeout time.Duration) *tools.Result {
	var notes []string
	if o.out.invalidUTF > 0 {
		n := o.out.invalidUTF
		notes = append(notes, fmt.Sprintf("[%s of the output %s not valid UTF-8 and %s replaced with U+FFFD]",
			plural(n, "byte", "bytes"), wasWere(n), wasWere(n)))
	}
	st := map[string]any{
		"exitCode":        nil,
		"signal":          nil,
		"timedOut":        o.timedOut,
		"truncated":       o.out.truncated,
		"spillPath":       nil,
		"shellReset":      o.reset() || lost != nil,
		"waitingForInput": o.waiting,
		"invalidUtf8":     o.out.invalidUTF,
	}
	if o.out.spillPath != "" {
		st["spillPath"] = o.out.spillPath
	}
	switch {
	case o.timedOut:
		if o.waiting {
			notes = append(notes, "[the command was waiting for input from the terminal, which this tool cannot type; give the input through a pipe, a here-document or a file, or use the program's non-interactive option]")
		}
		notes = append(notes, fmt.Sprintf("[timed out after %s; the command was stopped and the shell was reset: its %s]", durationText(timeout), resetText(cwd)))
	case o.died:
		notes = append(notes, deathMarker(o.exit), "[the shell's "+resetText(cwd)+"]")
		if o.exit.Known() {
			st["exitCode"] = exitCodeOf(o.exit)
		}
		if o.exit.Signal != 0 {
			st["signal"] = o.exit.SignalName()
		}
	case o.finished:
		if o.status != 0 {
			notes = append(notes, fmt.Sprintf("[exit code: %d]", o.status))
		}
		if o.status >= 0 {
			st["exitCode"] = o.status
		}
	}

	var b strings.Builder
	if lost != nil {
		fmt.Fprintf(&b, "[the previous shell ended between calls (%s); this command ran in a fresh shell in %s, without the earlier working directory, variables, functions or background jobs]\n",
			strings.Trim(deathMarker(lost.exit), "[]"), where(cwd))
	}
	b.WriteString(o.out.text)
	if len(notes) > 0 {
		if o.out.text != "" && !strings.HasSuffix(o.out.text, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join(notes, "\n"))
	}
	return &tools.Result{Text: b.String(), Structured: st, Raw: o.out.text}
}

// deathMarker is the line that says how the shell itself ended.
func deathMarker(st pty.ExitStatus) string {
	switch {
	case st.Signal != 0:
		return "[shell killed by signal: " + st.SignalName() + "]"
	case st.Known():
		return fmt.Sprintf("[shell exited: code %d]", st.Code)
	}
	return "[shell exited]"
}

func resetText(cwd string) string {
	return "working directory, variables, functions and background jobs are gone, and the next command starts in a fresh shell in " + where(cwd)
}

// where names the directory fresh shells start in.
func where(cwd string) string {
	if cwd == "" {
		return "the runtime's working directory"
	}
	return cwd
}

// exitCodeOf is the status a shell would report for a child that ended
// this way: the code, or 128 plus the signal.
func exitCodeOf(st pty.ExitStatus) int {
	if st.Signal != 0 {
		return 128 + int(st.Signal)
	}
	return st.Code
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return commas(int64(n)) + " " + many
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
