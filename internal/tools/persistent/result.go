package persistent

import (
	"fmt"
	"strings"
	"time"

	"github.com/shellport/shellport/internal/pty"
	"github.com/shellport/shellport/internal/tools"
)

// lostShell records why the shell the model knew is gone when a call
// arrives: it died between calls, or the call before was cancelled (which
// resets the shell and returns no result to say so).
type lostShell struct {
	exit      pty.ExitStatus
	loopEnded bool // its command loop had ended
	cancelled bool // the previous call was cancelled
}

// text is the line the next result starts with.
func (l *lostShell) text(cwd string) string {
	fresh := "this command ran in a fresh shell in " + where(cwd) + ", without the earlier working directory, variables, functions or background jobs"
	switch {
	case l.cancelled:
		return "[the previous call was cancelled, which reset the shell; " + fresh + "]"
	case l.loopEnded:
		return "[the previous shell ended between calls: its command loop stopped (" + strings.Trim(deathMarker(l.exit), "[]") + "); " + fresh + "]"
	}
	return "[the previous shell ended between calls (" + strings.Trim(deathMarker(l.exit), "[]") + "); " + fresh + "]"
}

// unusableText explains a shell that ended because a command left it unable
// to run its command loop.
const unusableText = "left the shell unable to run further commands, for example by disabling or shadowing a builtin it needs (read, printf, eval, trap, set, unset, builtin), making one of its __sp_ variables read-only, closing its descriptors 30 to 34, or lowering ulimit -n below 35"

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
	case o.sendErr != nil:
		notes = append(notes, fmt.Sprintf("[the command could not be handed to the shell (%v), so it did not run; the shell was reset: its %s]", o.sendErr, resetText(cwd)))
	case o.timedOut:
		if o.waiting {
			notes = append(notes, "[the command was waiting for input from the terminal, which this tool cannot type; give the input through a pipe, a here-document or a file, or use the program's non-interactive option]")
		}
		notes = append(notes, fmt.Sprintf("[timed out after %s; the command was stopped and the shell was reset: its %s]", durationText(timeout), resetText(cwd)))
	case o.broken:
		if o.status != 0 {
			notes = append(notes, fmt.Sprintf("[exit code: %d]", o.status))
		}
		st["exitCode"] = o.status
		notes = append(notes, "[the command finished, but it "+unusableText+"; the shell was reset: its "+resetText(cwd)+"]")
	case o.died && o.startFailed:
		notes = append(notes, deathMarker(o.exit), "[the shell ended before its command loop started, so the command did not run; the next call starts another shell in "+where(cwd)+"]")
		if o.exit.Known() {
			st["exitCode"] = exitCodeOf(o.exit)
		}
	case o.died:
		if o.loopEnded {
			notes = append(notes, "[the shell's command loop stopped, so the shell exited: the command ran break outside any loop, or it "+unusableText+"]")
		} else {
			notes = append(notes, deathMarker(o.exit))
		}
		notes = append(notes, "[the shell's "+resetText(cwd)+"]")
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
		b.WriteString(lost.text(cwd))
		b.WriteByte('\n')
	}
	b.WriteString(o.out.text)
	if len(notes) > 0 {
		if o.out.text != "" && !strings.HasSuffix(o.out.text, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join(notes, "\n"))
	}
	return &tools.Result{Text: b.String(), Structured: st, Raw: o.out.text, IsError: o.sendErr != nil}
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
