package patch

import (
	"errors"
	"fmt"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Sentinels a HunkError wraps, for callers that tell the failures apart.
var (
	ErrNoMatch   = errors.New("lines not found")
	ErrAmbiguous = errors.New("lines match more than one place")
	ErrNoAnchor  = errors.New("@@ line not found")
	ErrOrder     = errors.New("hunks out of order")
	// ErrPartial marks a failed Apply that could not undo every write it
	// had made: some files may hold patched content.
	ErrPartial = errors.New("some files may hold patched content")
)

// ParseError is a patch text that does not follow the format.
type ParseError struct {
	// What is the text at fault: "patch" (an envelope), "diff" (the diff
	// of one operation) or "operation".
	What string
	// Line is the 1-based line of that text, 0 for the text as a whole.
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("invalid %s: %s", e.What, e.Msg)
	}
	return fmt.Sprintf("invalid %s, line %d: %s", e.What, e.Line, e.Msg)
}

func parseErr(line int, format string, args ...any) error {
	return &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// HunkError is a hunk that cannot be placed in its file.
type HunkError struct {
	Path string
	// Hunk is the 1-based number of the hunk within its file section.
	Hunk int
	// First is the hunk's first line: its first unchanged or removed
	// line, else its last @@ line, else its first added line.
	First string
	// Err is one of the sentinels, with the details in Detail.
	Err    error
	Detail string
}

func (e *HunkError) Error() string {
	return fmt.Sprintf("%s, hunk %d (starting %s): %s", e.Path, e.Hunk, fileio.QuoteCut(e.First, 80), e.Detail)
}

func (e *HunkError) Unwrap() error { return e.Err }

// firstLine picks the line a message names a hunk by.
func firstLine(h Hunk) string {
	for _, l := range h.Lines {
		if l.Kind != '+' {
			return l.Text
		}
	}
	if len(h.Anchors) > 0 {
		return "@@ " + h.Anchors[len(h.Anchors)-1]
	}
	if len(h.Lines) > 0 {
		return "+" + h.Lines[0].Text
	}
	return ""
}
