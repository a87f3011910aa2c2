package output

import (
	"errors"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func itoa(n int) string { return strconv.Itoa(n) }

func regexpFind(s, pattern string) []string { return regexp.MustCompile(pattern).FindStringSubmatch(s) }

// regexpAll joins the runs of pattern at the starts of s's lines.
func regexpAll(s, pattern string) string {
	re := regexp.MustCompile("^" + pattern)
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(re.FindString(line))
	}
	return b.String()
}

func parseCommas(s string) int64 {
	n, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	return n
}

func body(s string) Text { return Text{Body: s} }

// Issue 11: the dialect, line by line.
func TestToolResultText(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"empty, clean exit", Result{ExitCode: Code(0)}, "[no output]"},
		{"output", Result{Output: body("hi\n"), ExitCode: Code(0)}, "hi\n"},
		{"no final newline", Result{Output: body("hi"), ExitCode: Code(0)}, "hi"},
		{"non-zero exit", Result{Output: body("x"), ExitCode: Code(2)}, "x\n[exit code: 2]"},
		{"empty, non-zero exit", Result{ExitCode: Code(3)}, "[exit code: 3]"},
		{"signal", Result{Signal: "SIGKILL"}, "[killed by signal: SIGKILL]"},
		{"timeout", Result{Output: body("partial\n"), TimedOut: true, Timeout: 2 * time.Second, Signal: "SIGTERM"}, "partial\n[timed out after 2 seconds]\n[killed by signal: SIGTERM]"},
		{"timeout, trapped", Result{TimedOut: true, Timeout: 500 * time.Millisecond, ExitCode: Code(0)}, "[timed out after 500 ms]"},
		{"waiting", Result{TimedOut: true, Timeout: time.Second, WaitingForInput: true, Closing: []string{"[reset]"}},
			"[the command was waiting for input from the terminal, which this tool cannot type; give the input through a pipe, a here-document or a file, or use the program's non-interactive option]\n[timed out after 1 second]\n[reset]"},
		{"opening", Result{Opening: []string{"[the previous call was cancelled]"}, ExitCode: Code(0)}, "[the previous call was cancelled]\n[no output]"},
		{"opening and output", Result{Opening: []string{"[o]"}, Output: body("x\n"), ExitCode: Code(1)}, "[o]\nx\n[exit code: 1]"},
		{"invalid", Result{Output: Text{Body: "\uFFFD", InvalidUTF8: 1}, ExitCode: Code(0)}, "\uFFFD\n[1 byte of the output was not valid UTF-8 and was replaced with U+FFFD]"},
		{"invalid, many", Result{Output: Text{Body: "x", InvalidUTF8: 1234}, ExitCode: Code(0)}, "x\n[1,234 bytes of the output were not valid UTF-8 and were replaced with U+FFFD]"},
		{"cut", Result{Output: Text{Body: "a\n[... 5 characters left out ...]\nb\n", Truncated: true, SpillPath: "/s/f.txt"}, ExitCode: Code(0)}, "a\n[... 5 characters left out ...]\nb\n[output truncated; full output: /s/f.txt]"},
		{"cut, unsaved", Result{Output: Text{Body: "a", Truncated: true, SpillErr: errors.New("disk\nfull")}, ExitCode: Code(1)}, "a\n[exit code: 1]\n[output truncated; the full output could not be saved: disk full]"},
		{"closing before truncated", Result{Output: Text{Body: "a\n", Truncated: true, SpillPath: "/f"}, Signal: "SIGKILL", Closing: []string{"[the shell was reset]"}}, "a\n[killed by signal: SIGKILL]\n[the shell was reset]\n[output truncated; full output: /f]"},
	} {
		res := tc.r.ToolResult()
		if res.Text != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, res.Text, tc.want)
		}
		if res.Raw != tc.r.Output.Body {
			t.Errorf("%s: raw %q", tc.name, res.Raw)
		}
		keys := make([]string, 0, len(res.Structured))
		for k := range res.Structured {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := slices.Clone(MetaKeys)
		sort.Strings(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: meta keys %v, want %v", tc.name, keys, want)
		}
	}
}

func TestMeta(t *testing.T) {
	m := Result{ExitCode: Code(3), Output: Text{Truncated: true, SpillPath: "/f", InvalidUTF8: 2}, ShellReset: true}.Meta()
	if m["exitCode"] != 3 || m["signal"] != nil || m["spillPath"] != "/f" || m["truncated"] != true || m["shellReset"] != true || m["invalidUtf8"] != 2 {
		t.Errorf("meta %v", m)
	}
	m = Result{Signal: "SIGKILL", ExitCode: Code(137)}.Meta()
	if m["exitCode"] != nil || m["signal"] != "SIGKILL" || m["spillPath"] != nil {
		t.Errorf("a signal leaves no exit code: %v", m)
	}
	if m := (Result{}).Meta(); m["exitCode"] != nil {
		t.Errorf("unknown status: %v", m)
	}
}

// Issue 16: a result's meta is one small map, made whole. Assigning to a
// full small map, as Meta once did after its literal, grows it into a
// table: 5 allocations per result instead of 2.
func TestMetaIsOneSmallMap(t *testing.T) {
	r := Result{ExitCode: Code(0)}
	if n := testing.AllocsPerRun(100, func() { _ = r.Meta() }); n > 2 {
		t.Errorf("Meta allocates %v times per result, want at most 2", n)
	}
}

// Issue 4, 11: the status lines read back as what was written.
func TestParseStatusRoundTrip(t *testing.T) {
	results := []Result{
		{ExitCode: Code(0)},
		{ExitCode: Code(1)},
		{ExitCode: Code(255)},
		{Signal: "SIGKILL"},
		{Signal: "signal 42"},
		{TimedOut: true, Timeout: 500 * time.Millisecond},
		{TimedOut: true, Timeout: 1500 * time.Millisecond, ExitCode: Code(3)},
		{TimedOut: true, Timeout: 120 * time.Second, Signal: "SIGTERM"},
		{TimedOut: true, Timeout: time.Second},
		{Output: Text{Truncated: true, SpillPath: "/tmp/spill dir/bash-output-1.txt"}},
		{Output: Text{Truncated: true, SpillPath: "/tmp/x]y.txt"}, ExitCode: Code(2), TimedOut: true, Timeout: 7 * time.Millisecond},
		{Output: Text{Truncated: true}},
	}
	bodies := []string{"", "hello\n", "no newline", "a\n[stderr]\nb", "[exit code: 9]\n"}
	for _, r := range results {
		for _, b := range bodies {
			r.Output.Body = b
			text := r.ToolResult().Text
			got := ParseStatus(text)
			want := Status{TimedOut: r.TimedOut, Timeout: r.Timeout, Signal: r.Signal, Truncated: r.Output.Truncated, SpillPath: r.Output.SpillPath}
			if r.ExitCode != nil {
				want.ExitCode = *r.ExitCode
			}
			if r.Signal != "" {
				want.ExitCode = -1
			}
			gotBody := got.Body
			got.Body = ""
			if got != want {
				if strings.HasPrefix(b, "[exit code") && !r.TimedOut && r.Signal == "" && want.ExitCode == 0 {
					continue // its line fits before the real ones: documented
				}
				t.Errorf("text %q:\n got %+v\nwant %+v", text, got, want)
			}
			if !strings.HasPrefix(text, gotBody) {
				t.Errorf("body %q is not a prefix of %q", gotBody, text)
			}
		}
	}
}

func TestParseStatusBodies(t *testing.T) {
	for text, want := range map[string]string{
		"[no output]":                       "",
		"hi\n":                              "hi\n",
		"hi\n[exit code: 2]":                "hi\n",
		"[exit code: 2]":                    "",
		"x\n[exit code: 2]\n[exit code: 3]": "x\n[exit code: 2]\n", // one line of a kind
		"[exit code: two]":                  "[exit code: two]",
		"[timed out after -5 ms]":           "[timed out after -5 ms]",
		"[timed out after 5ms]":             "[timed out after 5ms]",
		"[timed out after 2 second]":        "[timed out after 2 second]",
		"[killed by signal: ]":              "[killed by signal: ]",
		"x\n[the shell was reset]":          "x\n[the shell was reset]", // a tool's own line ends the parse
		"":                                  "",
	} {
		if got := ParseStatus(text).Body; got != want {
			t.Errorf("ParseStatus(%q).Body = %q, want %q", text, got, want)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1 * time.Millisecond:    "1 ms",
		500 * time.Millisecond:  "500 ms",
		time.Second:             "1 second",
		1500 * time.Millisecond: "1.5 seconds",
		1001 * time.Millisecond: "1.001 seconds",
		120 * time.Second:       "120 seconds",
		24 * time.Hour:          "86400 seconds",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
		if back, ok := parseDuration(want); !ok || back != d {
			t.Errorf("parseDuration(%q) = %v %v, want %v", want, back, ok, d)
		}
	}
}

// ParseStatus never panics, and reads back the lines ToolResult writes
// whatever the output before them.
func FuzzParseStatus(f *testing.F) {
	f.Add("out\n", 3, "SIGKILL", true, 500, true, "/tmp/x")
	f.Add("", 0, "", false, 0, false, "")
	f.Add("[exit code: 1]", 0, "", false, 0, false, "")
	f.Add("x\n[timed out after 1.5 seconds]", 1, "", true, 2000, false, "")
	f.Fuzz(func(t *testing.T, out string, code int, sig string, timedOut bool, ms int, truncated bool, path string) {
		_ = ParseStatus(out) // never panics on anything
		if strings.ContainsAny(sig+path, "\n[]") || !utf8.ValidString(sig) || !utf8.ValidString(path) || ms < 1 || ms > 86400000 {
			return
		}
		r := Result{Output: Text{Body: out, Truncated: truncated}, Signal: sig, TimedOut: timedOut, Timeout: time.Duration(ms) * time.Millisecond}
		if sig == "" {
			r.ExitCode = Code(code)
		}
		if truncated {
			r.Output.SpillPath = path
		}
		text := r.ToolResult().Text
		if !strings.HasSuffix(text, "]") || strings.Contains(out, "[") {
			return // no status lines, or output that may imitate them
		}
		got := ParseStatus(text)
		if got.TimedOut != timedOut || got.Signal != sig || got.Truncated != truncated || truncated && got.SpillPath != path {
			t.Errorf("text %q: got %+v", text, got)
		}
		if timedOut && got.Timeout != r.Timeout {
			t.Errorf("text %q: timeout %v, want %v", text, got.Timeout, r.Timeout)
		}
		if sig == "" && got.ExitCode != code {
			t.Errorf("text %q: exit code %d, want %d", text, got.ExitCode, code)
		}
	})
}

// The text a capture yields does not depend on how the writes split the
// stream, and is always valid UTF-8 within the budget.
func FuzzCaptureSplits(f *testing.F) {
	f.Add([]byte("hello\nwörld\xff\xe2\x82"), uint8(3), uint16(50))
	f.Add([]byte(strings.Repeat("line\n", 100)), uint8(7), uint16(100))
	f.Add([]byte{0xf0, 0x9f, 0x98, 0x80, 0xc3}, uint8(1), uint16(2))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, step uint8, limit uint16) {
		maxChars := int(limit%2000) + 1
		whole := NewCapture(Options{MaxChars: maxChars, SpillDir: dir})
		_, _ = whole.Write(data)
		a := Finish(maxChars, Section{Capture: whole})
		split := NewCapture(Options{MaxChars: maxChars, SpillDir: dir})
		n := int(step%16) + 1
		for i := 0; i < len(data); i += n {
			_, _ = split.Write(data[i:min(i+n, len(data))])
		}
		b := Finish(maxChars, Section{Capture: split})
		if a.Body != b.Body || a.InvalidUTF8 != b.InvalidUTF8 || a.Truncated != b.Truncated {
			t.Fatalf("whole %q (%d invalid), split by %d %q (%d invalid)", a.Body, a.InvalidUTF8, n, b.Body, b.InvalidUTF8)
		}
		if !utf8.ValidString(a.Body) {
			t.Fatalf("invalid UTF-8 in %q", a.Body)
		}
		if !a.Truncated && a.Body != strings.ToValidUTF8(string(data), "\x00") && strings.Count(a.Body, "\uFFFD") < a.InvalidUTF8 {
			t.Fatalf("body %q", a.Body)
		}
		if a.Truncated && utf8.RuneCountInString(a.Body) > maxChars+60 {
			t.Fatalf("%d characters kept of a budget of %d", utf8.RuneCountInString(a.Body), maxChars)
		}
		a.Remove()
		b.Remove()
	})
}
