package tools

import "encoding/json"

// CommandStatus returns the ACP status of a finished shell command:
// "failed" when the call was an error or the command did not succeed — it
// exited with a non-zero code, was killed by a signal or timed out — and
// "completed" otherwise. This is how the reference ACP adapters report a
// command (codex-acp maps a non-zero exit to failed), so a UI marks a failing
// test run the way users expect. It changes only the presentation: for the
// model a failing command stays an ordinary result, never an error.
//
// exitCode is the exit code as a number of any JSON-decoded kind, or nil
// when unknown; signal is the signal's name, or nil.
func CommandStatus(res *Result, exitCode, signal any, timedOut bool) string {
	switch {
	case res.IsError, timedOut, signal != nil && signal != "":
		return "failed"
	case exitCode == nil:
		return "completed"
	}
	if n, ok := number(exitCode); ok && n != 0 {
		return "failed"
	}
	return "completed"
}

// number reads an exit code that may have been through JSON.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
