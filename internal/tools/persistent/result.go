package persistent

import (
	"fmt"
	"time"

	"github.com/shellport/shellport/internal/pty"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
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
		return "[the previous shell ended between calls: its command loop stopped (" + howEnded(l.exit) + "); " + fresh + "]"
	}
	return "[the previous shell ended between calls (" + howEnded(l.exit) + "); " + fresh + "]"
}

// unusableText explains a shell that ended because a command left it unable
// to run its command loop.
const unusableText = "left the shell unable to run further commands, for example by disabling or shadowing a builtin it needs (read, printf, eval, trap, set, unset, builtin), making one of its __sp_ variables read-only, closing its descriptors 10 to 14, or lowering ulimit -n so far that bash cannot save a descriptor"

// render turns an outcome into the result, in the dialect of the output
// core shared with one-shot bash: the output, then the common status lines
// (timeout, exit code or signal), then this tool's own lines about the
// shell (that it was reset, and why). A reset the model has not been told
// of yet (lost) opens the text.
func render(o outcome, lost *lostShell, cwd string, timeout time.Duration) *tools.Result {
	r := output.Result{
		Output:          o.out,
		TimedOut:        o.timedOut,
		Timeout:         timeout,
		WaitingForInput: o.waiting,
		ShellReset:      o.reset() || lost != nil,
	}
	if lost != nil {
		r.Opening = []string{lost.text(cwd)}
	}
	switch {
	case o.sendErr != nil:
		r.IsError = true
		r.Closing = append(r.Closing, fmt.Sprintf("[the command could not be handed to the shell (%v), so it did not run; the shell was reset: its %s]", o.sendErr, resetText(cwd)))
	case o.timedOut:
		r.Closing = append(r.Closing, "[the command was stopped and the shell was reset: its "+resetText(cwd)+"]")
	case o.taken:
		r.Closing = append(r.Closing, "[the command finished, but another process (such as a background job using the shell's descriptors through /proc) read or wrote the shell's report of its exit status, so the status is unknown; the shell was reset: its "+resetText(cwd)+"]")
	case o.lost:
		r.Closing = append(r.Closing, "[the shell was found waiting for a command while this one had not ended: another process (such as a background job using the shell's descriptors through /proc) read the shell's control or return FIFO, so whether the command ran, and its exit status, are unknown; the shell was reset: its "+resetText(cwd)+"]")
	case o.broken:
		r.ExitCode = output.Code(o.status)
		r.Closing = append(r.Closing, "[the command finished, but it "+unusableText+"; the shell was reset: its "+resetText(cwd)+"]")
	case o.died && o.startFailed:
		r.Closing = append(r.Closing, "[the shell ended ("+howEnded(o.exit)+") before its command loop started, so the command did not run; the next call starts another shell in "+where(cwd)+"]")
	case o.died:
		r.ExitCode, r.Signal = shellExit(o.exit)
		switch {
		case o.loopEnded:
			r.Closing = append(r.Closing, "[the shell's command loop stopped, so the shell exited: the command ran break outside any loop, or it "+unusableText+"]")
			r.Closing = append(r.Closing, "[the shell's "+resetText(cwd)+"]")
		case o.exit.Signal != 0:
			r.Closing = append(r.Closing, "[the shell was killed, so it was reset: its "+resetText(cwd)+"]")
		case o.exit.Known():
			r.Closing = append(r.Closing, "[the shell exited, so it was reset: its "+resetText(cwd)+"]")
		default:
			r.Closing = append(r.Closing, "[the shell ended, so it was reset: its "+resetText(cwd)+"]")
		}
	case o.finished && o.status >= 0:
		r.ExitCode = output.Code(o.status)
	}
	return r.ToolResult()
}

// shellExit is how a shell that died reports in a result: its exit code,
// or the signal that killed it; neither when unknown.
func shellExit(st pty.ExitStatus) (*int, string) {
	switch {
	case st.Signal != 0:
		return nil, st.SignalName()
	case st.Known():
		return output.Code(st.Code), ""
	}
	return nil, ""
}

// howEnded says how the shell itself ended, in the words of the status
// lines: "exit code: 1", "killed by signal: SIGKILL".
func howEnded(st pty.ExitStatus) string {
	switch {
	case st.Signal != 0:
		return "killed by signal: " + st.SignalName()
	case st.Known():
		return fmt.Sprintf("exit code: %d", st.Code)
	}
	return "how is unknown"
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
