package shell

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools/bash"
	"github.com/shellport/shellport/internal/tools/output"
)

// outcome is how a command ended: an exit code, or a timeout.
type outcome struct {
	timedOut bool
	exitCode int
}

// entry is one output of a shell_call_output item.
func entry(stdout, stderr string, o outcome) map[string]any {
	oc := map[string]any{"type": "exit", "exit_code": o.exitCode}
	if o.timedOut {
		oc = map[string]any{"type": "timeout"}
	}
	return map[string]any{"stdout": stdout, "stderr": stderr, "outcome": oc}
}

// stream is one output stream on its way into a result: valid UTF-8, with
// the characters the runner left out in the middle.
type stream struct {
	head, tail string
	omitted    int64
	invalid    int // bytes that were not UTF-8 and became U+FFFD
}

func newStream(s bash.Stream) stream {
	st := stream{head: string(s.Head), tail: string(s.Tail), omitted: s.Omitted, invalid: s.InvalidUTF8}
	// The runner's streams are clean already; anything else is made so,
	// since a cut must never split a character.
	if !utf8.ValidString(st.head) || !utf8.ValidString(st.tail) {
		st.invalid = max(st.invalid, 1)
		st.head = strings.ToValidUTF8(st.head, "\uFFFD")
		st.tail = strings.ToValidUTF8(st.tail, "\uFFFD")
	}
	return st
}

// chars is the stream's length in characters.
func (s stream) chars() int64 {
	return int64(utf8.RuneCountInString(s.head)) + s.omitted + int64(utf8.RuneCountInString(s.tail))
}

// fit returns the stream in at most budget characters: whole when it fits;
// else its beginning and end around a note of how much was left out, the
// note counted in the budget; a budget too small for the note gets the
// beginning alone. It reports whether anything was left out.
func (s stream) fit(budget int64) (string, bool) {
	if s.omitted == 0 && s.tail == "" && int64(utf8.RuneCountInString(s.head)) <= budget {
		return s.head, false
	}
	total := s.chars()
	body := s.head + s.tail // when nothing is omitted, the stream is head (and tail) in order
	if budget < minNoted {
		return firstRunes(s.head, budget), true
	}
	// The note for the whole stream is the longest the note can be, so
	// what is shown plus the real note stays within the budget.
	keep := budget - int64(utf8.RuneCountInString(omittedNote(total)))
	headN := keep * 2 / 5
	tailN := keep - headN
	var head, tail string
	if s.omitted == 0 {
		head, tail = firstRunes(body, headN), lastRunes(body, tailN)
	} else {
		head, tail = firstRunes(s.head, headN), lastRunes(s.tail, tailN)
	}
	shown := int64(utf8.RuneCountInString(head) + utf8.RuneCountInString(tail))
	return head + omittedNote(total-shown) + tail, true
}

// minNoted is the smallest budget that gets a note; below it a cut stream
// keeps only its beginning.
const minNoted = 64

// omittedNote marks where a cut stream's middle was.
func omittedNote(n int64) string {
	if n == 1 {
		return "\n[... 1 character left out ...]\n"
	}
	return "\n[... " + output.Commas(n) + " characters left out ...]\n"
}

func firstRunes(s string, n int64) string {
	if n <= 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int64) string {
	if n <= 0 {
		return ""
	}
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if n--; n == 0 {
			return s[i:]
		}
	}
	return s
}

// shares splits limit characters between streams of the given sizes: a
// stream that fits in an equal share of what is left keeps all of it, and
// the others share the rest equally (water-filling), so one loud command
// cannot crowd out the short outputs around it.
func shares(sizes []int64, limit int64) []int64 {
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] < sizes[order[b]] })
	out := make([]int64, len(sizes))
	left := limit
	for k, i := range order {
		share := left / int64(len(order)-k)
		out[i] = min(sizes[i], share)
		left -= out[i]
	}
	return out
}
