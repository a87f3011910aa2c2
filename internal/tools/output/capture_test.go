package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func newTestCapture(t *testing.T, maxChars int) (*Capture, string) {
	t.Helper()
	dir := t.TempDir()
	return NewCapture(Options{MaxChars: maxChars, SpillDir: dir}), dir
}

func spillFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Output that fits is kept whole, split anywhere, and leaves no file.
func TestCaptureKeepsWhatFits(t *testing.T) {
	c, dir := newTestCapture(t, 100)
	for _, piece := range []string{"hé", "\xc3", "\xa9llo\n", "wörld"} {
		_, _ = c.Write([]byte(piece))
	}
	text := Finish(100, Section{Capture: c})
	if text.Body != "héébllo\nwörld" && text.Body != "hé"+"é"+"llo\nwörld" {
		t.Fatalf("body %q", text.Body)
	}
	if text.Truncated || text.SpillPath != "" || text.InvalidUTF8 != 0 {
		t.Fatalf("text %+v", text)
	}
	if files := spillFiles(t, dir); len(files) != 0 {
		t.Fatalf("files left: %v", files)
	}
}

// Issue 11: invalid UTF-8 is replaced and counted in both tools (one-shot
// used to replace it silently); the spill file keeps the bytes as written.
func TestCaptureInvalidUTF8(t *testing.T) {
	for name, pieces := range map[string][]string{
		"one write":          {"a\xffb\xc3(c\n"},
		"split":              {"a", "\xff", "b\xc3", "(c\n"},
		"cut at the end":     {"abc\xe2\x82"},
		"invalid after more": {strings.Repeat("x", 50), "\xfe\xfe", strings.Repeat("y", 500)},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newTestCapture(t, 100)
			var raw []byte
			for _, p := range pieces {
				raw = append(raw, p...)
				_, _ = c.Write([]byte(p))
			}
			text := Finish(100, Section{Capture: c})
			want := strings.ToValidUTF8(string(raw), "\x00")
			invalid := 0
			for i := 0; i < len(raw); {
				r, size := utf8.DecodeRune(raw[i:])
				if r == utf8.RuneError && size == 1 {
					invalid++
				}
				i += size
			}
			if text.InvalidUTF8 != invalid || !utf8.ValidString(text.Body) {
				t.Fatalf("invalid %d (want %d), body %q", text.InvalidUTF8, invalid, text.Body)
			}
			if !text.Truncated && strings.Count(text.Body, "\uFFFD") != invalid {
				t.Fatalf("body %q does not show %d replacements (%q)", text.Body, invalid, want)
			}
			if text.Truncated {
				data, err := os.ReadFile(text.SpillPath)
				if err != nil || !bytes.Equal(data, raw) {
					t.Fatalf("spill file %q, want the bytes as written %q (%v)", data, raw, err)
				}
			}
		})
	}
}

// Issue 3, 11: past the budget the head and the tail are kept around a
// note that says how much was left out, memory stays bounded, and the
// spill file holds everything.
func TestCaptureCutsHeadAndTail(t *testing.T) {
	c, dir := newTestCapture(t, 1000)
	var all bytes.Buffer
	for i := 1; i <= 200000; i++ {
		line := []byte(strings.Repeat("z", i%7) + "line " + itoa(i) + "\n")
		all.Write(line)
		_, _ = c.Write(line)
		if len(c.tail) > 2*4*c.tailMax+(64<<10)+len(line) || len(c.buf) > 4*1000+len(line) {
			t.Fatalf("memory grew: tail %d, buf %d", len(c.tail), len(c.buf))
		}
	}
	text := Finish(1000, Section{Capture: c})
	if !text.Truncated || text.SpillPath == "" || text.SpillErr != nil {
		t.Fatalf("text %+v", text)
	}
	if n := utf8.RuneCountInString(text.Body); n > 1000+80 {
		t.Fatalf("body is %d characters", n)
	}
	if !strings.HasPrefix(text.Body, "zline 1\nzzline 2\n") || !strings.HasSuffix(text.Body, "\nzzzline 200000\n") {
		t.Fatalf("head or tail missing: %q … %q", text.Body[:40], text.Body[len(text.Body)-40:])
	}
	note := regexpFind(text.Body, `\[\.\.\. ([0-9,]+) characters \(([0-9,]+) lines\) left out \.\.\.\]`)
	if note == nil {
		t.Fatalf("no cut note in %q", text.Body)
	}
	kept := strings.Replace(text.Body, note[0]+"\n", "", 1)
	if got := int64(utf8.RuneCountInString(kept)) + parseCommas(note[1]); got != int64(all.Len()) {
		t.Errorf("kept plus left out is %d characters, output was %d", got, all.Len())
	}
	if got := int64(strings.Count(kept, "\n")) + parseCommas(note[2]); got != 200000 {
		t.Errorf("kept plus left out is %d lines, output was 200000", got)
	}
	data, err := os.ReadFile(text.SpillPath)
	if err != nil || !bytes.Equal(data, all.Bytes()) {
		t.Fatalf("spill file holds %d bytes, want %d (%v)", len(data), all.Len(), err)
	}
	if files := spillFiles(t, dir); len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
}

// Issue 11: the one-shot tool's two streams share the budget; stderr gets
// its label and a place in the one spill file.
func TestFinishSharesTheBudget(t *testing.T) {
	dir := t.TempDir()
	out := NewCapture(Options{MaxChars: 200, SpillDir: dir})
	errs := NewCapture(Options{MaxChars: 200, SpillDir: dir, SpillPrefix: "bash-stderr"})
	_, _ = out.Write([]byte(strings.Repeat("o", 180)))
	_, _ = errs.Write([]byte(strings.Repeat("e", 150)))
	text := Finish(200, Section{Capture: out}, Section{Label: "[stderr]", Capture: errs})
	if !text.Truncated || !strings.Contains(text.Body, "\n[stderr]\n") {
		t.Fatalf("body %q", text.Body)
	}
	o, e, _ := strings.Cut(text.Body, "\n[stderr]\n")
	if n := len(regexpAll(o, `o+`)); n != 100 || len(regexpAll(e, `e+`)) != 100 {
		t.Errorf("shares: %d of stdout, %d of stderr kept: %q", n, len(regexpAll(e, `e+`)), text.Body)
	}
	data, err := os.ReadFile(text.SpillPath)
	if want := strings.Repeat("o", 180) + "\n[stderr]\n" + strings.Repeat("e", 150); err != nil || string(data) != want {
		t.Fatalf("spill file %q (%v)", data, err)
	}
	if files := spillFiles(t, dir); len(files) != 1 {
		t.Fatalf("files: %v", files)
	}

	// An empty stderr has no label; a small one keeps all of it.
	out = NewCapture(Options{MaxChars: 200, SpillDir: dir})
	errs = NewCapture(Options{MaxChars: 200, SpillDir: dir})
	_, _ = out.Write([]byte("fine\n"))
	if text := Finish(200, Section{Capture: out}, Section{Label: "[stderr]", Capture: errs}); text.Body != "fine\n" {
		t.Fatalf("body %q", text.Body)
	}
}

func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		sizes []int64
		want  []int64
	}{
		{50, []int64{10, 20}, []int64{10, 20}},
		{50, []int64{100, 10}, []int64{40, 10}},
		{50, []int64{10, 100}, []int64{10, 40}},
		{50, []int64{100, 100}, []int64{25, 25}},
		{51, []int64{100, 100}, []int64{26, 25}},
		{30, []int64{0, 100}, []int64{0, 30}},
		{90, []int64{100, 10, 100}, []int64{40, 10, 40}},
	} {
		got := budget(tc.limit, tc.sizes)
		if !equal(got, tc.want) {
			t.Errorf("budget(%d, %v) = %v, want %v", tc.limit, tc.sizes, got, tc.want)
		}
	}
}

// Issue 17's seam: an observer sees the clean text as it is written, in
// order, whole; without one nothing changes.
func TestObserveSeesCleanText(t *testing.T) {
	var seen bytes.Buffer
	c := NewCapture(Options{MaxChars: 50, SpillDir: t.TempDir(), Observe: func(p []byte) {
		if !utf8.Valid(p) {
			t.Errorf("observed invalid UTF-8 %q", p)
		}
		seen.Write(p)
	}})
	input := strings.Repeat("ab\xc3", 40) + "\xa9\xff"
	for i := 0; i < len(input); i += 7 {
		_, _ = c.Write([]byte(input[i:min(i+7, len(input))]))
	}
	Finish(50, Section{Capture: c})
	if want := strings.ToValidUTF8(input, "\uFFFD"); seen.String() != strings.ReplaceAll(want, "\uFFFD", "\uFFFD") && utf8.RuneCountInString(seen.String()) != int(c.chars) {
		t.Fatalf("observed %q", seen.String())
	}
	if int64(utf8.RuneCountInString(seen.String())) != c.chars {
		t.Fatalf("observed %d characters, captured %d", utf8.RuneCountInString(seen.String()), c.chars)
	}
}

// A capture whose text is never shown leaves no file.
func TestDiscardRemovesTheSpill(t *testing.T) {
	c, dir := newTestCapture(t, 10)
	_, _ = c.Write([]byte(strings.Repeat("x", 100)))
	if len(spillFiles(t, dir)) != 1 {
		t.Fatal("no spill file while cut")
	}
	c.Discard()
	if files := spillFiles(t, dir); len(files) != 0 {
		t.Fatalf("files left: %v", files)
	}
	c, dir = newTestCapture(t, 10)
	_, _ = c.Write([]byte(strings.Repeat("x", 100)))
	Finish(10, Section{Capture: c}).Remove()
	if files := spillFiles(t, dir); len(files) != 0 {
		t.Fatalf("files left: %v", files)
	}
}

// A spill directory that cannot be written is reported, and the text is
// still cut.
func TestSpillFailure(t *testing.T) {
	c := NewCapture(Options{MaxChars: 10, SpillDir: filepath.Join(t.TempDir(), "missing")})
	_, _ = c.Write([]byte(strings.Repeat("x", 100)))
	text := Finish(10, Section{Capture: c})
	if !text.Truncated || text.SpillPath != "" || text.SpillErr == nil || utf8.RuneCountInString(text.Body) > 80 {
		t.Fatalf("text %+v", text)
	}
	res := Result{Output: text}.ToolResult()
	if !strings.HasSuffix(res.Text, "]") || !strings.Contains(res.Text, "[output truncated; the full output could not be saved: create spill file: ") {
		t.Fatalf("text %q", res.Text)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Ends (the openai shell's runner): a short stream comes back whole; a
// long one as its first and last keep characters and the count between
// them, never splitting a character; the spill file is gone either way.
func TestCaptureEnds(t *testing.T) {
	const keep = 10
	c, dir := newTestCapture(t, keep*5/2+1)
	_, _ = c.Write([]byte("short é\xff"))
	head, tail, omitted, invalid := c.Ends(keep)
	if string(head) != "short é\uFFFD" || tail != nil || omitted != 0 || invalid != 1 {
		t.Fatalf("short: %q %q %d %d", head, tail, omitted, invalid)
	}

	c, dir = newTestCapture(t, keep*5/2+1)
	text := "ééééé-begin" + strings.Repeat("x", 5000) + "end-ééééé"
	for i := 0; i < len(text); i += 7 { // pieces that split characters
		_, _ = c.Write([]byte(text[i:min(i+7, len(text))]))
	}
	head, tail, omitted, _ = c.Ends(keep)
	if string(head) != "ééééé-begi" || string(tail) != "xend-ééééé" {
		t.Fatalf("long: head %q tail %q", head, tail)
	}
	if n := int64(utf8.RuneCountInString(text)); omitted != n-2*keep {
		t.Fatalf("omitted %d, want %d", omitted, n-2*keep)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("spill files left: %v", entries)
	}
}
