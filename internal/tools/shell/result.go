package shell

import (
	"fmt"
	"strings"
	"time"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// result builds a batch's result: its structured output is the output list
// of a shell_call_output item, within limit characters in all; its text
// shows the same outputs to a model that reads the tool as a function.
func result(runs []run, limit int, asked *int64, timeoutMs int) *tools.Result {
	streams := make([]stream, 0, 2*len(runs))
	sizes := make([]int64, 0, 2*len(runs))
	for _, r := range runs {
		for _, s := range []stream{newStream(r.out.Stdout), newStream(r.out.Stderr)} {
			streams = append(streams, s)
			sizes = append(sizes, s.chars())
		}
	}
	budget := shares(sizes, int64(limit))
	outputs := make([]any, 0, len(runs))
	var text, raw strings.Builder
	truncated, invalid, timedOut, skipped := false, 0, false, 0
	for i, r := range runs {
		stdout, cutOut := streams[2*i].fit(budget[2*i])
		stderr, cutErr := streams[2*i+1].fit(budget[2*i+1])
		truncated = truncated || cutOut || cutErr
		invalid += streams[2*i].invalid + streams[2*i+1].invalid
		o := outcomeOf(r)
		timedOut = timedOut || o.timedOut
		skipped += r.skipped
		outputs = append(outputs, entry(stdout, stderr, o))
		raw.WriteString(stdout + stderr)

		if i > 0 {
			text.WriteString("\n")
		}
		text.WriteString("$ " + commandLine(r.command) + "\n")
		section(&text, stdout)
		if stderr != "" {
			text.WriteString("[stderr]\n")
			section(&text, stderr)
		}
		switch {
		case o.timedOut:
			text.WriteString("[timed out after " + output.Duration(time.Duration(timeoutMs)*time.Millisecond) + "]\n")
		case r.out.Signal != "":
			fmt.Fprintf(&text, "[killed by signal: %s; exit code %d]\n", r.out.Signal, o.exitCode)
		case o.exitCode != 0:
			fmt.Fprintf(&text, "[exit code: %d]\n", o.exitCode)
		}
		if r.skipped > 0 {
			fmt.Fprintf(&text, "[the %s after it did not run: a command that times out ends the batch]\n", count(r.skipped, "command", "commands"))
		}
	}
	if truncated {
		fmt.Fprintf(&text, "[output cut to %d characters in all; the marked parts were left out]\n", limit)
	}
	if invalid > 0 {
		text.WriteString(output.InvalidNote(invalid) + "\n")
	}
	st := map[string]any{
		"output":    outputs,
		"truncated": truncated,
		"timedOut":  timedOut,
		"ran":       len(runs),
		"skipped":   skipped,
	}
	if asked != nil {
		st["max_output_length"] = *asked
	}
	return &tools.Result{Text: strings.TrimSuffix(text.String(), "\n"), Structured: st, Raw: raw.String()}
}

// outcomeOf is how a command ended, in the API's terms: a timeout, or an
// exit code (128 plus the signal's number for a command a signal killed,
// as a shell reports it; 127 for one that could not start).
func outcomeOf(r run) outcome {
	switch {
	case r.out.TimedOut:
		return outcome{timedOut: true}
	case r.out.StartErr != nil:
		return outcome{exitCode: startExit}
	case r.out.Signal != "":
		return outcome{exitCode: 128 + signalNumber(r.out.Signal)}
	}
	return outcome{exitCode: r.out.ExitCode}
}

// section writes one output stream, ending its last line.
func section(b *strings.Builder, s string) {
	if s == "" {
		return
	}
	b.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
}

// commandLine shows a command on one line, cut to a readable length.
func commandLine(c string) string {
	first, rest, multi := strings.Cut(c, "\n")
	if len(first) > 200 {
		return firstRunes(first, 200) + " …"
	}
	if multi && rest != "" {
		return first + " …"
	}
	return first
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
