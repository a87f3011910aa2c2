package editor

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// bom is the UTF-8 byte order mark. It is kept in the file but never shown,
// so it cannot end up in a copied old_str.
var bom = []byte{0xEF, 0xBB, 0xBF}

// numberer writes lines in the view format — the line number right-aligned
// in six columns, a tab, the line — into one buffer, within a budget of
// characters. Tabs stay raw so a shown line can be pasted as old_str. The
// \r of a CRLF ending is not shown (edits translate line endings), and
// invalid UTF-8 is shown as U+FFFD and remembered for a note.
type numberer struct {
	buf    []byte
	budget int    // characters left
	shell  string // the bash tool's name, for the note on a cut line

	crlf       bool  // a shown line ended with CRLF
	badLines   []int // first few lines holding invalid UTF-8
	badCount   int
	first      int // first line written, 0 if none
	last       int // last line written
	cutLine    int // a line shown only in part, 0 if none
	cutLineLen int // its full length in characters
	cutShown   int // characters of it shown
}

// maxBadLines bounds the list of lines named in the invalid UTF-8 note.
const maxBadLines = 5

// display returns the text of a line as shown. line excludes the '\n';
// ended tells whether one followed.
func display(line []byte, ended bool) (text []byte, crlf, bad bool) {
	if ended && len(line) > 0 && line[len(line)-1] == '\r' {
		line, crlf = line[:len(line)-1], true
	}
	if !utf8.Valid(line) {
		return bytes.ToValidUTF8(line, []byte("\uFFFD")), crlf, true
	}
	return line, crlf, false
}

// prefixLen is the width of a line number and its tab.
func prefixLen(n int) int {
	d := len(strconv.Itoa(n))
	return max(d, 6) + 1
}

// cost returns the characters a line takes in the output.
func cost(n int, text []byte) int {
	return prefixLen(n) + utf8.RuneCount(text) + 1
}

// add writes line n if it fits in the budget and reports whether it did.
func (w *numberer) add(n int, line []byte, ended bool) bool {
	text, crlf, bad := display(line, ended)
	c := cost(n, text)
	if c > w.budget {
		return false
	}
	w.budget -= c
	w.write(n, text)
	w.crlf = w.crlf || crlf
	if bad {
		w.noteBad(n)
	}
	return true
}

// addCut writes the start of line n, as much as the budget allows, for a
// line too long to show whole. full is the line's length in bytes when only
// a prefix was read.
func (w *numberer) addCut(n int, line []byte, ended bool, full int) {
	text, crlf, bad := display(line, ended)
	room := max(w.budget-prefixLen(n)-1, 0)
	shown, i := 0, 0
	for i < len(text) && shown < room {
		_, size := utf8.DecodeRune(text[i:])
		i += size
		shown++
	}
	total := utf8.RuneCount(text) + (full - len(line)) // bytes not read count as one character each
	w.budget -= prefixLen(n) + shown + 1
	w.write(n, text[:i])
	w.crlf = w.crlf || crlf
	if bad {
		w.noteBad(n)
	}
	w.cutLine, w.cutLineLen, w.cutShown = n, total, shown
}

func (w *numberer) write(n int, text []byte) {
	s := strconv.Itoa(n)
	for i := len(s); i < 6; i++ {
		w.buf = append(w.buf, ' ')
	}
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\t')
	w.buf = append(w.buf, text...)
	w.buf = append(w.buf, '\n')
	if w.first == 0 {
		w.first = n
	}
	w.last = n
}

func (w *numberer) noteBad(n int) {
	w.badCount++
	if len(w.badLines) < maxBadLines {
		w.badLines = append(w.badLines, n)
	}
}

// numberText writes the lines of an in-memory text, the first numbered
// first, until the budget runs out. It returns the number of the first line
// it could not write, or 0 when all were written. A final '\n' does not
// start another line.
func (w *numberer) numberText(text []byte, first int) int {
	n := first
	for len(text) > 0 {
		line, rest, ended := bytes.Cut(text, nl)
		if !w.add(n, line, ended) {
			if w.first == 0 {
				w.addCut(n, line, ended, len(line))
				if len(rest) > 0 {
					return n + 1
				}
				return 0
			}
			return n
		}
		text = rest
		n++
	}
	return 0
}

// notes returns the bracketed notes about what was shown.
func (w *numberer) notes() []string {
	var out []string
	if w.cutLine != 0 {
		out = append(out, "[line "+strconv.Itoa(w.cutLine)+" has "+strconv.Itoa(w.cutLineLen)+
			" characters; only the first "+strconv.Itoa(w.cutShown)+" are shown. Read the rest with "+w.shell+", e.g. cut -c]")
	}
	if w.crlf {
		out = append(out, `[CRLF line endings are shown without the \r; write old_str and new_str with plain newlines, edits keep CRLF]`)
	}
	if w.badCount > 0 {
		lines := ""
		for i, n := range w.badLines {
			if i > 0 {
				lines += ", "
			}
			lines += strconv.Itoa(n)
		}
		if w.badCount > len(w.badLines) {
			lines += " and " + strconv.Itoa(w.badCount-len(w.badLines)) + " more"
		}
		word := "line "
		if w.badCount > 1 {
			word = "lines "
		}
		out = append(out, "[invalid UTF-8 on "+word+lines+", shown as U+FFFD; this tool will not edit the file]")
	}
	return out
}
