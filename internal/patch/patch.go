// Package patch parses and applies V4A patches, the diff format OpenAI's
// models write: the per-file operations of the Responses API apply_patch
// tool (create_file, update_file, delete_file) and the multi-file
// "*** Begin Patch" envelope Codex-style agents emit.
//
// A patch is applied all or nothing. [Apply] first resolves every path,
// reads every file it changes and computes every new content in memory;
// only when all of that succeeded does it write, each file atomically, and
// if a write fails midway it restores what it had already written.
//
// # Placing a hunk
//
// A hunk's unchanged and removed lines (its block) must appear in the file,
// after the previous hunk of the same file. The match is tried at four
// levels, each looser than the last, and the first level that finds the
// block anywhere decides: exact; ignoring whitespace at line ends;
// ignoring whitespace at both ends; and that plus typographic punctuation
// (curly quotes, dashes, non-breaking and other special spaces read as
// their ASCII forms). These are the ways a model's copy of a line usually
// differs from the file — indentation retyped (tabs as spaces), trailing
// whitespace dropped, straight quotes and hyphens for typographic ones —
// and none of them changes which line is meant. Nothing looser is tried
// (no edit distance, no partial lines): every level compares whole lines,
// so a match is never a guess at a nearby place, and the result names any
// hunk that needed a loose level.
//
// A block that matches more than one place is refused, unless the hunk's
// @@ lines pick one: each @@ line names a line above the change (a class, a
// function), the next @@ line is looked for below it, and the change must
// lie inside the indented block the last of them opens. A block that
// matches nowhere, a hunk that lies above the previous one, and an @@ line
// that is not in the file are refused too. The error names the file, the
// hunk by number and its first line, and says why.
//
// # What is kept
//
// Every byte outside the changed lines stays: tabs, each line's own ending
// (a CRLF file stays CRLF when the patch uses LF; added lines take the
// file's line ending), a UTF-8 byte order mark and a missing final newline.
// Unchanged lines inside a hunk keep the file's bytes even when they were
// matched loosely. Files that hold NUL bytes or invalid UTF-8 are never
// changed.
//
// Paths resolve against the session's directory when relative, follow the
// rules of [fileio.CheckPath], and are vetted by an optional
// [fileio.Policy] both as written and with symbolic links resolved.
package patch

// Op is what a file section does.
type Op int

// The three operations of a V4A patch.
const (
	Add Op = iota + 1
	Update
	Delete
)

func (o Op) String() string {
	switch o {
	case Add:
		return "add"
	case Update:
		return "update"
	case Delete:
		return "delete"
	}
	return "unknown"
}

// Patch is a parsed patch: file sections in the order they are applied.
type Patch struct {
	Files []File
	// CRLF records that the patch text ended its lines with CRLF. New
	// files, and lines added to a file that has no line ending yet, then
	// get CRLF; otherwise LF.
	CRLF bool
	// Operation records a patch built by ParseOperation, so that messages
	// name create_file and delete_file rather than envelope sections.
	Operation bool
}

// File is one file section.
type File struct {
	Op   Op
	Path string
	// MoveTo is the new path of an updated file ("*** Move to:"), or "".
	MoveTo string
	// Text is the content of an added file, every line ended.
	Text string
	// Hunks are the changes of an updated file, in file order.
	Hunks []Hunk
	// Line is the 1-based line of the section in the patch text; 0 for a
	// patch built from one operation.
	Line int
}

// Hunk is one contiguous change.
type Hunk struct {
	// Anchors are the texts of the hunk's @@ lines, outermost first.
	Anchors []string
	// Lines are the hunk's lines in order.
	Lines []Line
	// Optional is the number of trailing context lines that were empty
	// lines in the patch (no leading space). A patch often ends a section
	// with a blank line meant as a separator, so these lines never decide
	// where the hunk goes (unchanged lines at the end of a hunk only place
	// it; leaving them out changes no byte of the result).
	Optional int
	// EOF marks a hunk that must end at the end of the file.
	EOF bool
	// Line is the 1-based line of the hunk's first line in the patch text.
	Line int
}

// Line is one line of a hunk.
type Line struct {
	// Kind is ' ' for an unchanged line, '-' for a removed one and '+'
	// for an added one.
	Kind byte
	Text string
}

// Counts returns the number of added and removed lines of the hunks.
func Counts(hunks []Hunk) (added, removed int) {
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case '+':
				added++
			case '-':
				removed++
			}
		}
	}
	return added, removed
}

// Old returns the hunk's unchanged and removed lines: the text it expects
// in the file.
func (h Hunk) Old() []string { return h.side('+') }

// New returns the hunk's unchanged and added lines: the text it leaves.
func (h Hunk) New() []string { return h.side('-') }

func (h Hunk) side(skip byte) []string {
	out := make([]string, 0, len(h.Lines))
	for _, l := range h.Lines {
		if l.Kind != skip {
			out = append(out, l.Text)
		}
	}
	return out
}
