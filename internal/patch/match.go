package patch

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools/fileio"
)

// Match is how loosely a hunk's lines had to be compared to find them.
type Match int

// The levels of comparison, strictest first. The first level at which a
// hunk's block matches anywhere in the file decides where it goes.
const (
	// Exact compares lines byte for byte (line endings aside).
	Exact Match = iota
	// IgnoreTrailingSpace ignores whitespace at the end of lines.
	IgnoreTrailingSpace
	// IgnoreSpace ignores whitespace at both ends of lines.
	IgnoreSpace
	// IgnorePunctuation also reads typographic quotes, dashes and special
	// spaces as their ASCII forms.
	IgnorePunctuation
)

func (m Match) String() string {
	switch m {
	case Exact:
		return "exactly"
	case IgnoreTrailingSpace:
		return "only when whitespace at line ends was ignored"
	case IgnoreSpace:
		return "only when whitespace at the start and end of lines was ignored"
	}
	return "only when whitespace at line ends and typographic punctuation (curly quotes, dashes, special spaces) were ignored"
}

// placed is where a hunk goes: its block takes lines [at, end) of the old
// file.
type placed struct {
	at, end int
	lines   []Line
	match   Match
}

// maxListed bounds the line numbers an ambiguity error lists.
const maxListed = 5

// place finds where hunk h goes, at or after line cursor. Trailing empty
// lines written without their leading space may be separators, not
// context, so they never decide where a hunk goes: the hunk is placed
// without them. Only a hunk pinned to the end of the file, whose place is
// fixed, is tried with them when it does not fit without.
func (d *doc) place(h Hunk, cursor int) (placed, *HunkError) {
	pl, err := d.placeLines(h, h.Lines[:len(h.Lines)-h.Optional], cursor)
	if err != nil && h.Optional > 0 && h.EOF {
		if pl2, err2 := d.placeLines(h, h.Lines, cursor); err2 == nil {
			return pl2, nil
		}
	}
	return pl, err
}

func (d *doc) placeLines(h Hunk, lines []Line, cursor int) (placed, *HunkError) {
	var block []string
	for _, l := range lines {
		if l.Kind != '+' {
			block = append(block, l.Text)
		}
	}
	if len(block) == 0 {
		at, err := d.placeInsert(h, cursor)
		return placed{at: at, end: at, lines: lines}, err
	}
	m := len(block)
	hits := d.anchorHits(h.Anchors)
	if h.EOF {
		p := d.n() - m
		if p >= cursor {
			if lv, ok := d.matchAt(p, block); ok {
				if chained, _ := d.chain(hits, p); chained {
					return placed{at: p, end: p + m, lines: lines, match: lv}, nil
				}
				return placed{}, d.anchorErr(h, hits, p)
			}
		}
		detail := "it ends with " + eofMarker + ", but its lines are not the last lines of the file"
		if cands, _ := d.find(block, 0); len(cands) > 0 {
			detail += "; they match at " + listLines(cands)
		}
		return placed{}, &HunkError{Err: ErrNoMatch, Detail: detail}
	}
	cands, lv := d.find(block, cursor)
	if len(cands) == 0 {
		return placed{}, d.diagnose(block, cursor)
	}
	pick := -1
	if len(h.Anchors) == 0 {
		if len(cands) == 1 {
			pick = cands[0]
		}
	} else {
		var chained, scoped []int
		for _, p := range cands {
			if c, s := d.chain(hits, p); c {
				chained = append(chained, p)
				if s {
					scoped = append(scoped, p)
				}
			}
		}
		switch {
		case len(chained) == 0:
			return placed{}, d.anchorErr(h, hits, cands[0])
		case len(chained) == 1:
			pick = chained[0]
		case len(scoped) == 1:
			pick = scoped[0]
		}
		cands = chained
	}
	if pick < 0 {
		return placed{}, &HunkError{Err: ErrAmbiguous, Detail: fmt.Sprintf(
			"its unchanged and removed lines match %d places (%s); add unchanged lines around the change until they match one place, or an @@ line holding the line that opens the enclosing class or function",
			len(cands), listLines(cands))}
	}
	return placed{at: pick, end: pick + m, lines: lines, match: lv}, nil
}

// placeInsert places a hunk that only adds lines: after its last @@ line,
// at the end for *** End of File, or at the top of an empty file.
func (d *doc) placeInsert(h Hunk, cursor int) (int, *HunkError) {
	switch {
	case h.EOF:
		return d.n(), nil
	case len(h.Anchors) > 0:
		lo, hi, at := cursor, d.n(), -1
		for _, a := range h.Anchors {
			var found []int
			for i := lo; i < hi; i++ {
				if anchorMatch(d.text(i), a) {
					found = append(found, i)
				}
			}
			switch {
			case len(found) == 0:
				return 0, &HunkError{Err: ErrNoAnchor, Detail: fmt.Sprintf("its @@ line %s is not in the file below the previous hunk", fileio.QuoteCut(a, 80))}
			case len(found) > 1:
				return 0, &HunkError{Err: ErrAmbiguous, Detail: fmt.Sprintf(
					"it only adds lines, and its @@ line %s matches %d lines (%s); add an @@ line for the enclosing class, or unchanged lines around the new ones",
					fileio.QuoteCut(a, 80), len(found), listLines(found))}
			}
			at, lo, hi = found[0], found[0]+1, d.scopeEnd(found[0])
		}
		return at + 1, nil
	case d.n() == 0:
		return 0, nil
	}
	return 0, &HunkError{Err: ErrNoMatch, Detail: "it only adds lines and has no unchanged line or @@ line to place them by; add a few unchanged lines around the new ones"}
}

// find returns the lines at or after from where block matches, at the
// strictest level that finds any.
func (d *doc) find(block []string, from int) ([]int, Match) {
	last := d.n() - len(block)
	for lv := Exact; lv <= IgnorePunctuation; lv++ {
		var cands []int
		for p := max(from, 0); p <= last; p++ {
			if d.matchLevel(p, block, lv) {
				cands = append(cands, p)
			}
		}
		if len(cands) > 0 {
			return cands, lv
		}
	}
	return nil, Exact
}

// matchAt reports whether block matches at line p, and at which level.
func (d *doc) matchAt(p int, block []string) (Match, bool) {
	for lv := Exact; lv <= IgnorePunctuation; lv++ {
		if d.matchLevel(p, block, lv) {
			return lv, true
		}
	}
	return Exact, false
}

func (d *doc) matchLevel(p int, block []string, lv Match) bool {
	if p < 0 || p+len(block) > d.n() {
		return false
	}
	for k, want := range block {
		if !equalAt(lv, d.text(p+k), want) {
			return false
		}
	}
	return true
}

// equalAt compares a line of the file with a line of the patch at a level.
func equalAt(lv Match, line []byte, want string) bool {
	switch lv {
	case Exact:
		return string(line) == want
	case IgnoreTrailingSpace:
		return string(bytes.TrimRightFunc(line, unicode.IsSpace)) == strings.TrimRightFunc(want, unicode.IsSpace)
	case IgnoreSpace:
		return string(bytes.TrimSpace(line)) == strings.TrimSpace(want)
	}
	ok, rest := foldPrefix(bytes.TrimSpace(line), strings.TrimSpace(want))
	return ok && len(rest) == 0
}

// foldPrefix reports whether want is a prefix of line when typographic
// punctuation and special spaces are read as ASCII, and returns the rest
// of line.
func foldPrefix(line []byte, want string) (bool, []byte) {
	i := 0
	for _, w := range want {
		if i >= len(line) {
			return false, nil
		}
		r, n := utf8.DecodeRune(line[i:])
		if fold(r) != fold(w) {
			return false, nil
		}
		i += n
	}
	return true, line[i:]
}

// fold maps the typographic forms models rarely reproduce to ASCII.
func fold(r rune) rune {
	switch {
	case r >= 0x2010 && r <= 0x2015, r == 0x2212: // hyphens, dashes, minus sign
		return '-'
	case r >= 0x2018 && r <= 0x201B: // single quotes
		return '\''
	case r >= 0x201C && r <= 0x201F: // double quotes
		return '"'
	case r == 0x00A0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000: // special spaces
		return ' '
	}
	return r
}

// anchorMatch reports whether a file line is the line an @@ text names:
// equal when whitespace at both ends and typographic punctuation are
// ignored, or beginning with the text where it ends at a word boundary
// ("def run" names "def run(self):", not "def runner():").
func anchorMatch(line []byte, a string) bool {
	w := strings.TrimSpace(a)
	if w == "" {
		return false
	}
	ok, rest := foldPrefix(bytes.TrimSpace(line), w)
	if !ok || len(rest) == 0 {
		return ok
	}
	next, _ := utf8.DecodeRune(rest)
	last, _ := utf8.DecodeLastRuneInString(w)
	return !isWord(next) || !isWord(last)
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// anchorHits returns, per @@ text, the lines it names.
func (d *doc) anchorHits(anchors []string) [][]int {
	hits := make([][]int, len(anchors))
	for k, a := range anchors {
		for i := 0; i < d.n(); i++ {
			if anchorMatch(d.text(i), a) {
				hits[k] = append(hits[k], i)
			}
		}
	}
	return hits
}

// chain reports whether a block at line p lies below the @@ lines in
// order (each @@ line's nearest occurrence above the next one; the last
// may also be the block's own first line), and whether it also lies
// inside the block each of them opens.
func (d *doc) chain(hits [][]int, p int) (chained, scoped bool) {
	pos, scoped := p+1, true
	for k := len(hits) - 1; k >= 0; k-- {
		i := sort.SearchInts(hits[k], pos) - 1
		if i < 0 {
			return false, false
		}
		if p >= d.scopeEnd(hits[k][i]) {
			scoped = false
		}
		pos, p = hits[k][i], hits[k][i]
	}
	return true, scoped
}

// scopeEnd returns the line that ends the block opened by line a: the
// next line (blank lines and lines that only close brackets aside)
// indented no deeper than a. When no deeper line follows a (a heading in
// Markdown, a flat file), the block runs to the next line equal to a.
func (d *doc) scopeEnd(a int) int {
	if e, ok := d.scopes[a]; ok {
		return e
	}
	if d.scopes == nil {
		d.scopes = map[int]int{}
	}
	e := d.computeScopeEnd(a)
	d.scopes[a] = e
	return e
}

func (d *doc) computeScopeEnd(a int) int {
	n := d.n()
	ind := indent(d.text(a))
	j := a + 1
	for j < n && len(bytes.TrimSpace(d.text(j))) == 0 {
		j++
	}
	if j == n {
		return n
	}
	if indent(d.text(j)) <= ind {
		head := bytes.TrimSpace(d.text(a))
		for k := a + 1; k < n; k++ {
			if bytes.Equal(bytes.TrimSpace(d.text(k)), head) {
				return k
			}
		}
		return n
	}
	for k := j; k < n; k++ {
		t := d.text(k)
		if len(bytes.TrimSpace(t)) == 0 || closer(t) {
			continue
		}
		if indent(t) <= ind {
			return k
		}
	}
	return n
}

func indent(line []byte) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

// closer reports whether a line only closes a block: starts with a
// closing bracket, or is a block-ending keyword of shell, Ruby or Lua.
func closer(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '}', ')', ']':
		return true
	}
	switch string(bytes.TrimRight(t, ";")) {
	case "end", "fi", "done", "esac":
		return true
	}
	return false
}

// anchorErr explains why a block found at line p is not below the hunk's
// @@ lines.
func (d *doc) anchorErr(h Hunk, hits [][]int, p int) *HunkError {
	for k, hs := range hits {
		if len(hs) == 0 {
			return &HunkError{Err: ErrNoAnchor, Detail: fmt.Sprintf("its @@ line %s is not a line of the file; an @@ line repeats a line above the change, such as the one that opens its class or function", fileio.QuoteCut(h.Anchors[k], 80))}
		}
	}
	return &HunkError{Err: ErrNoAnchor, Detail: fmt.Sprintf("its lines match at line %d, but not below its @@ lines (%s) in that order", p+1, quoteAll(h.Anchors))}
}

// diagnose explains why a block matches nowhere at or after cursor.
func (d *doc) diagnose(block []string, cursor int) *HunkError {
	if cursor > 0 {
		if cands, _ := d.find(block, 0); len(cands) > 0 {
			return &HunkError{Err: ErrOrder, Detail: fmt.Sprintf(
				"its lines match at %s, which is not below the end of the previous hunk (line %d); hunks of a file must follow the file's order and must not overlap",
				listLines(cands), cursor)}
		}
	}
	best, bestScore := -1, 0
	for p := 0; p < d.n(); p++ {
		score := 0
		for k := 0; k < len(block) && p+k < d.n(); k++ {
			if equalAt(IgnorePunctuation, d.text(p+k), block[k]) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = p, score
		}
	}
	if best < 0 {
		return &HunkError{Err: ErrNoMatch, Detail: fmt.Sprintf("none of its %d unchanged or removed lines is in the file; view the file and copy those lines exactly", len(block))}
	}
	k := 0
	for k < len(block) && best+k < d.n() && equalAt(IgnorePunctuation, d.text(best+k), block[k]) {
		k++
	}
	where := fmt.Sprintf("the closest place is line %d, where %d of its %d unchanged or removed lines match", best+1, bestScore, len(block))
	if best+k >= d.n() {
		return &HunkError{Err: ErrNoMatch, Detail: fmt.Sprintf("its lines are not in the file: %s, but the file ends after line %d", where, d.n())}
	}
	return &HunkError{Err: ErrNoMatch, Detail: fmt.Sprintf("its lines are not in the file: %s; the first difference is at line %d, where the file has %s and the hunk has %s",
		where, best+k+1, fileio.QuoteCut(string(d.text(best+k)), 80), fileio.QuoteCut(block[k], 80))}
}

// listLines names 0-based line indexes as 1-based lines: "line 3",
// "lines 3, 9 and 12", "lines 3, 9, 12, 20, 31 and 4 more".
func listLines(idx []int) string {
	shown := idx[:min(len(idx), maxListed)]
	parts := make([]string, len(shown))
	for i, v := range shown {
		parts[i] = strconv.Itoa(v + 1)
	}
	switch {
	case len(idx) == 1:
		return "line " + parts[0]
	case len(idx) > len(shown):
		return "lines " + strings.Join(parts, ", ") + " and " + strconv.Itoa(len(idx)-len(shown)) + " more"
	}
	return "lines " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func quoteAll(ss []string) string {
	var q []string
	for i, s := range ss {
		if i == 3 {
			q = append(q, "…")
			break
		}
		q = append(q, fileio.QuoteCut(s, 60))
	}
	return strings.Join(q, " then ")
}
