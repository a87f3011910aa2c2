package bash

import (
	"fmt"
	"strconv"
	"strings"
)

// Marker texts. Each is one line of the result; docs/TOOLS.md quotes them.
const (
	markNoOutput   = "[no output]"
	markStderr     = "[stderr]"
	markCancelled  = "[cancelled]"
	markTimedOut   = "[timed out after %dms]"
	markSignal     = "[killed by signal: %s]"
	markExit       = "[exit code: %d]"
	markTruncated  = "[output truncated; full output: %s]"
	markUnsaved    = "[output truncated; the full output could not be saved: %s]"
	markOmitted    = "[... %d earlier characters omitted ...]"
	markOmittedOne = "[... 1 earlier character omitted ...]"
	prefixTimedOut = "[timed out after "
	prefixSignal   = "[killed by signal: "
	prefixExit     = "[exit code: "
	prefixSpill    = "[output truncated; full output: "
	prefixUnsaved  = "[output truncated; the full output could not be saved: "
)

// runOutput is the kept output of a one-shot command.
type runOutput struct {
	stdout, stderr         []byte
	outOmitted, errOmitted int64 // characters cut from the front
	hasStderr              bool  // stderr was not empty, even if nothing of it was kept
}

// formatRun builds the model-facing text: stdout, a [stderr] section, then
// one line per status marker. It is valid UTF-8.
func formatRun(o runOutput, st Status, spillErr error) string {
	var b strings.Builder
	section(&b, o.stdout, o.outOmitted)
	if o.hasStderr {
		newline(&b)
		b.WriteString(markStderr + "\n")
		section(&b, o.stderr, o.errOmitted)
	}
	markers := statusMarkers(st, spillErr)
	if len(markers) > 0 {
		newline(&b)
		b.WriteString(strings.Join(markers, "\n"))
	}
	if b.Len() == 0 {
		return markNoOutput
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

func section(b *strings.Builder, p []byte, omitted int64) {
	switch {
	case omitted == 1:
		b.WriteString(markOmittedOne + "\n")
	case omitted > 1:
		fmt.Fprintf(b, markOmitted+"\n", omitted)
	}
	b.Write(p)
}

// newline ends the builder's last line unless it is empty or already ended.
func newline(b *strings.Builder) {
	if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

func statusMarkers(st Status, spillErr error) []string {
	var m []string
	if st.Cancelled {
		m = append(m, markCancelled)
	}
	if st.TimedOut {
		m = append(m, fmt.Sprintf(markTimedOut, st.TimeoutMs))
	}
	if st.Signal != "" {
		m = append(m, fmt.Sprintf(markSignal, st.Signal))
	} else if st.ExitCode != 0 {
		m = append(m, fmt.Sprintf(markExit, st.ExitCode))
	}
	if st.Truncated {
		if st.SpillPath != "" {
			m = append(m, fmt.Sprintf(markTruncated, st.SpillPath))
		} else {
			reason := "unknown error"
			if spillErr != nil {
				reason = strings.ReplaceAll(spillErr.Error(), "\n", " ")
			}
			m = append(m, fmt.Sprintf(markUnsaved, reason))
		}
	}
	return m
}

func parseStatus(text string) Status {
	var st Status
	if text == markNoOutput {
		return st
	}
	// Markers are written in a fixed order, so reading up from the end each
	// must be of an earlier kind than the one below it. Output that ends in
	// marker-shaped lines is then misread only when those lines could have
	// been written before the real markers.
	below := kindEnd
	rest := text
	for rest != "" {
		i := strings.LastIndexByte(rest, '\n')
		next := st
		kind, ok := next.parseMarker(rest[i+1:])
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
		st.Body += "\n" // the line end before the first marker
	}
	if st.Signal != "" {
		st.ExitCode = -1
	}
	return st
}

// Marker kinds, in the order they are written.
const (
	kindCancelled = iota
	kindTimedOut
	kindExit // exit code or signal: one or the other
	kindTruncated
	kindEnd
)

// parseMarker applies one marker line to st and says which kind it was.
func (st *Status) parseMarker(line string) (int, bool) {
	switch {
	case !strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "]"):
		return 0, false
	case line == markCancelled:
		st.Cancelled = true
		return kindCancelled, true
	case strings.HasPrefix(line, prefixTimedOut):
		ms, ok := cut(line, prefixTimedOut, "ms]")
		n, err := strconv.Atoi(ms)
		if !ok || err != nil || n < 0 {
			return 0, false
		}
		st.TimedOut, st.TimeoutMs = true, n
		return kindTimedOut, true
	case strings.HasPrefix(line, prefixSignal):
		name, _ := cut(line, prefixSignal, "]")
		if name == "" || strings.ContainsAny(name, "[]") {
			return 0, false
		}
		st.Signal = name
		return kindExit, true
	case strings.HasPrefix(line, prefixExit):
		code, _ := cut(line, prefixExit, "]")
		n, err := strconv.Atoi(code)
		if err != nil {
			return 0, false
		}
		st.ExitCode = n
		return kindExit, true
	case strings.HasPrefix(line, prefixSpill):
		st.Truncated = true
		st.SpillPath, _ = cut(line, prefixSpill, "]")
		return kindTruncated, true
	case strings.HasPrefix(line, prefixUnsaved):
		st.Truncated = true
		return kindTruncated, true
	}
	return 0, false
}

// cut returns s without prefix and suffix, and whether it had both.
func cut(s, prefix, suffix string) (string, bool) {
	if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, suffix) || len(s) < len(prefix)+len(suffix) {
		return "", false
	}
	return s[len(prefix) : len(s)-len(suffix)], true
}

// oneLine shortens a command for notices: one line, at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
