package patch

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Marker lines of the format.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File:"
	updateMarker = "*** Update File:"
	deleteMarker = "*** Delete File:"
	moveMarker   = "*** Move to:"
	eofMarker    = "*** End of File"
)

const bomText = "\uFEFF"

// Parse parses a multi-file patch: "*** Begin Patch", then file sections
// ("*** Add File: PATH" with + lines, "*** Delete File: PATH", "*** Update
// File: PATH" with an optional "*** Move to: PATH" and hunks), then "***
// End Patch". Blank lines around the envelope and between sections are
// ignored, and so is a shell here-document wrapper (<<'EOF' … EOF) that
// agents trained on a shell tool sometimes keep.
func Parse(text string) (*Patch, error) {
	if err := checkPatchText("patch", text); err != nil {
		return nil, err
	}
	lines, crlf := splitLines(strings.TrimPrefix(text, bomText))
	lo, hi := trimBlank(lines, 0, len(lines))
	if lo < hi-1 && isHeredocStart(lines[lo]) && strings.TrimSpace(lines[hi-1]) == "EOF" {
		lo, hi = trimBlank(lines, lo+1, hi-1)
	}
	switch {
	case lo == hi:
		return nil, patchErr(0, "the patch is empty; it starts with the line %s and ends with %s", beginMarker, endMarker)
	case strings.TrimSpace(lines[lo]) != beginMarker:
		return nil, patchErr(lo+1, "a patch starts with the line %s, not %s", beginMarker, fileio.QuoteCut(lines[lo], 60))
	case hi-lo < 2 || strings.TrimSpace(lines[hi-1]) != endMarker:
		for i := hi - 1; i > lo; i-- {
			if strings.TrimSpace(lines[i]) == endMarker {
				return nil, patchErr(i+2, "text follows the line %s; a patch ends with that line", endMarker)
			}
		}
		return nil, patchErr(hi, "the patch does not end with the line %s, so it may have been cut off", endMarker)
	}
	p := &Patch{CRLF: crlf}
	eol := eolOf(crlf)
	end := hi - 1
	for i := lo + 1; i < end; {
		line := strings.TrimRight(lines[i], " \t")
		if line == "" {
			i++
			continue
		}
		f := File{Line: i + 1}
		var err error
		switch {
		case strings.HasPrefix(line, addMarker):
			f.Op = Add
			if f.Path, err = headerPath(line, addMarker, i); err == nil {
				f.Text, i, err = parseAdd(lines, i+1, end, eol, true)
			}
		case strings.HasPrefix(line, deleteMarker):
			f.Op = Delete
			f.Path, err = headerPath(line, deleteMarker, i)
			i++
		case strings.HasPrefix(line, updateMarker):
			f.Op = Update
			f.Path, err = headerPath(line, updateMarker, i)
			i++
			if err == nil && i < end && strings.HasPrefix(strings.TrimRight(lines[i], " \t"), moveMarker) {
				f.MoveTo, err = headerPath(strings.TrimRight(lines[i], " \t"), moveMarker, i)
				i++
			}
			if err == nil {
				f.Hunks, i, err = parseHunks(lines, i, end, "patch", true)
			}
			if err == nil && len(f.Hunks) == 0 && f.MoveTo == "" {
				err = patchErr(f.Line, "the %s section of %s holds no hunk; add @@ hunks, or leave the file out of the patch", updateMarker, f.Path)
			}
		case line == endMarker:
			return nil, patchErr(i+1, "%s appears before the last line; a patch has one envelope", endMarker)
		default:
			return nil, patchErr(i+1, "expected a file section (%s, %s or %s PATH), got %s", addMarker, updateMarker, deleteMarker, fileio.QuoteCut(lines[i], 60))
		}
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, f)
	}
	if len(p.Files) == 0 {
		return nil, patchErr(0, "the patch holds no file section")
	}
	return p, nil
}

// ParseOperation builds a one-file patch from an operation of the
// Responses API apply_patch tool. kind is "create_file" (diff holds the new
// file's lines, each starting with +), "update_file" (diff holds hunks:
// optional @@ lines, then lines starting with a space, - or +) or
// "delete_file" (no diff).
func ParseOperation(kind, path, diff string) (*Patch, error) {
	if path == "" {
		return nil, &ParseError{What: "operation", Msg: `"path" is required`}
	}
	if err := fileio.CheckPath(path); err != nil {
		return nil, &ParseError{What: "operation", Msg: err.Error()}
	}
	if err := checkPatchText("diff", diff); err != nil {
		return nil, err
	}
	lines, crlf := splitLines(strings.TrimPrefix(diff, bomText))
	p := &Patch{CRLF: crlf, Operation: true}
	f := File{Path: path}
	lo, hi := trimBlank(lines, 0, len(lines))
	if lo < hi && strings.TrimSpace(lines[lo]) == beginMarker {
		return nil, diffErr(lo+1, "the diff holds a whole %s envelope; an operation's diff holds only %s", beginMarker, diffShape(kind))
	}
	var err error
	switch kind {
	case "create_file":
		f.Op = Add
		var next int
		f.Text, next, err = parseAdd(lines, 0, len(lines), eolOf(crlf), false)
		if err == nil && next < len(lines) {
			err = diffErr(next+1, "every line of a create_file diff starts with +, got %s", fileio.QuoteCut(lines[next], 60))
		}
	case "update_file":
		f.Op = Update
		f.Hunks, _, err = parseHunks(lines, 0, len(lines), "diff", false)
		if err == nil && len(f.Hunks) == 0 {
			err = diffErr(0, "the diff of update_file holds no hunk; it holds @@ lines and lines starting with a space, - or +")
		}
	case "delete_file":
		f.Op = Delete
		if strings.TrimSpace(diff) != "" {
			err = diffErr(0, "delete_file takes no diff")
		}
	case "":
		err = &ParseError{What: "operation", Msg: `"type" is required: create_file, update_file or delete_file`}
	default:
		err = &ParseError{What: "operation", Msg: "unknown type " + fileio.QuoteCut(kind, 40) + ": use create_file, update_file or delete_file"}
	}
	if err != nil {
		return nil, err
	}
	p.Files = []File{f}
	return p, nil
}

func diffShape(kind string) string {
	if kind == "create_file" {
		return "the new file's lines, each starting with +"
	}
	return "hunks: @@ lines and lines starting with a space, - or +"
}

// parseAdd reads the + lines of an added file from lines[i:end] and
// returns the file's text and the index of the first line it did not take.
// Empty lines between + lines are empty lines of the file (a model's
// editor often strips the lone +); empty lines after the last one are
// separators. In a patch, the section must end at a file marker.
func parseAdd(lines []string, i, end int, eol string, envelope bool) (string, int, error) {
	var b strings.Builder
	pending := 0
	for ; i < end; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "+") {
			for ; pending > 0; pending-- {
				b.WriteString(eol)
			}
			b.WriteString(l[1:])
			b.WriteString(eol)
			continue
		}
		if strings.TrimSpace(l) == "" {
			pending++
			continue
		}
		break
	}
	if envelope && i < end && !isSectionStart(lines[i]) {
		return "", i, patchErr(i+1, "an %s section holds only lines starting with +, got %s", addMarker, fileio.QuoteCut(lines[i], 60))
	}
	return b.String(), i, nil
}

// parseHunks reads hunks from lines[i:end] until a file marker (in a
// patch) or the end, and returns them with the index of the first line it
// did not take.
func parseHunks(lines []string, i, end int, what string, envelope bool) ([]Hunk, int, error) {
	var hunks []Hunk
	var cur *Hunk
	var bare []bool // per line of cur: an empty line without its leading space
	closeHunk := func() error {
		if cur == nil {
			return nil
		}
		n := len(hunks) + 1
		if len(cur.Lines) == 0 {
			return &ParseError{What: what, Line: cur.Line, Msg: "hunk " + strconv.Itoa(n) + " has an @@ line but no lines under it"}
		}
		for k := len(bare) - 1; k >= 0 && bare[k]; k-- {
			cur.Optional++
		}
		if a, r := Counts([]Hunk{*cur}); a+r == 0 {
			return &ParseError{What: what, Line: cur.Line, Msg: "hunk " + strconv.Itoa(n) + " changes nothing: none of its lines starts with - or +"}
		}
		hunks = append(hunks, *cur)
		cur, bare = nil, nil
		return nil
	}
	for ; i < end; i++ {
		l := lines[i]
		m := strings.TrimRight(l, " \t")
		if envelope && isSectionStart(m) {
			break
		}
		switch {
		case m == eofMarker:
			if cur == nil || len(cur.Lines) == 0 {
				return nil, i, &ParseError{What: what, Line: i + 1, Msg: eofMarker + " must follow the lines of a hunk"}
			}
			cur.EOF = true
			if err := closeHunk(); err != nil {
				return nil, i, err
			}
		case strings.HasPrefix(l, "@@"):
			if cur != nil && len(cur.Lines) > 0 {
				if err := closeHunk(); err != nil {
					return nil, i, err
				}
			}
			if cur == nil {
				cur = &Hunk{Line: i + 1}
			}
			if a := anchorOf(m); a != "" {
				cur.Anchors = append(cur.Anchors, a)
			}
		case strings.HasPrefix(l, "***"):
			return nil, i, &ParseError{What: what, Line: i + 1, Msg: markerHint(m, envelope)}
		case l == "":
			if cur == nil {
				continue // a blank line between hunks
			}
			cur.Lines = append(cur.Lines, Line{Kind: ' '})
			bare = append(bare, true)
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if cur == nil {
				if len(hunks) > 0 {
					return nil, i, &ParseError{What: what, Line: i + 1, Msg: "a hunk starts with an @@ line; only a file's first hunk may leave it out"}
				}
				cur = &Hunk{Line: i + 1}
			}
			cur.Lines = append(cur.Lines, Line{Kind: l[0], Text: l[1:]})
			bare = append(bare, false)
		default:
			return nil, i, &ParseError{What: what, Line: i + 1, Msg: "each line of a hunk starts with a space (unchanged line), - (removed) or + (added), got " + fileio.QuoteCut(l, 60)}
		}
	}
	if err := closeHunk(); err != nil {
		return nil, i, err
	}
	return hunks, i, nil
}

func markerHint(m string, envelope bool) string {
	switch {
	case m == endMarker && envelope:
		return endMarker + " appears before the last line; a patch has one envelope"
	case !envelope && (m == beginMarker || m == endMarker || isSectionStart(m) || strings.HasPrefix(m, moveMarker)):
		return "an operation's diff holds only hunks, not " + fileio.QuoteCut(m, 40) + " lines; the operation itself names the file"
	case strings.HasPrefix(m, moveMarker):
		return moveMarker + " must come right after its " + updateMarker + " line"
	}
	return "unknown marker " + fileio.QuoteCut(m, 60) + "; inside a hunk every line starts with a space, - or +"
}

// rangeHeader matches a unified-diff hunk header; its numbers are ignored
// (hunks are placed by their lines) and the text after it is an anchor.
var rangeHeader = regexp.MustCompile(`^@@ ?-\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$`)

// anchorOf returns the text of an @@ line, "" for a bare @@.
func anchorOf(m string) string {
	for {
		sub := rangeHeader.FindStringSubmatch(m)
		if sub == nil {
			break
		}
		m = "@@ " + strings.TrimSpace(sub[1])
	}
	a := strings.TrimPrefix(m[2:], " ")
	if strings.TrimSpace(a) == "" {
		return ""
	}
	return a
}

func headerPath(line, marker string, i int) (string, error) {
	path := strings.TrimSpace(line[len(marker):])
	if path == "" {
		return "", patchErr(i+1, "no path after %s", marker)
	}
	if err := fileio.CheckPath(path); err != nil {
		return "", patchErr(i+1, "%v", err)
	}
	return path, nil
}

func isSectionStart(l string) bool {
	return strings.HasPrefix(l, addMarker) || strings.HasPrefix(l, updateMarker) || strings.HasPrefix(l, deleteMarker)
}

func isHeredocStart(l string) bool {
	l = strings.TrimPrefix(strings.TrimSpace(l), "apply_patch ")
	switch strings.ReplaceAll(l, " ", "") {
	case "<<EOF", "<<'EOF'", `<<"EOF"`:
		return true
	}
	return false
}

func trimBlank(lines []string, lo, hi int) (int, int) {
	for lo < hi && strings.TrimSpace(lines[lo]) == "" {
		lo++
	}
	for hi > lo && strings.TrimSpace(lines[hi-1]) == "" {
		hi--
	}
	return lo, hi
}

// splitLines splits text into lines without their ending (\n, or \r\n),
// and reports whether every line break was CRLF.
func splitLines(text string) ([]string, bool) {
	if text == "" {
		return nil, false
	}
	crlf := strings.Contains(text, "\r\n") && strings.Count(text, "\n") == strings.Count(text, "\r\n")
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines, crlf
}

func eolOf(crlf bool) string {
	if crlf {
		return "\r\n"
	}
	return "\n"
}

// checkPatchText refuses a patch text that is not valid UTF-8 or holds a
// NUL byte: the patch writes text files only.
func checkPatchText(what, text string) error {
	if strings.IndexByte(text, 0) >= 0 {
		return &ParseError{What: what, Line: strings.Count(text[:strings.IndexByte(text, 0)], "\n") + 1, Msg: "it contains a NUL byte; patches write text files only"}
	}
	if utf8.ValidString(text) {
		return nil
	}
	bad := 0
	for bad < len(text) {
		r, n := utf8.DecodeRuneInString(text[bad:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		bad += n
	}
	return &ParseError{What: what, Line: bytes.Count([]byte(text[:bad]), []byte{'\n'}) + 1, Msg: "it is not valid UTF-8"}
}

func patchErr(line int, format string, args ...any) error {
	e := parseErr(line, format, args...).(*ParseError)
	e.What = "patch"
	return e
}

func diffErr(line int, format string, args ...any) error {
	e := parseErr(line, format, args...).(*ParseError)
	e.What = "diff"
	return e
}
