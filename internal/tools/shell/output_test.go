package shell

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shellport/shellport/internal/tools/bash"
)

func TestShares(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		limit int64
		want  []int64
	}{
		{[]int64{10, 20}, 100, []int64{10, 20}},
		{[]int64{10, 500, 20, 500}, 100, []int64{10, 35, 20, 35}},
		{[]int64{1000, 0, 5}, 100, []int64{95, 0, 5}},
		{[]int64{50, 50}, 0, []int64{0, 0}},
		{[]int64{7, 7, 7}, 10, []int64{3, 3, 4}},
		{nil, 10, []int64{}},
	} {
		if got := shares(c.sizes, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("shares(%v, %d) = %v, want %v", c.sizes, c.limit, got, c.want)
		}
	}
}

func TestFit(t *testing.T) {
	whole := stream{head: "hello\n"}
	if s, cut := whole.fit(6); s != "hello\n" || cut {
		t.Fatalf("whole: %q %v", s, cut)
	}
	if s, cut := whole.fit(3); s != "hel" || !cut {
		t.Fatalf("below the note's minimum: %q %v", s, cut)
	}
	long := stream{head: strings.Repeat("a", 300) + strings.Repeat("b", 300)}
	s, cut := long.fit(200)
	if !cut || utf8.RuneCountInString(s) > 200 || !strings.HasPrefix(s, "aaa") || !strings.HasSuffix(s, "bbb") {
		t.Fatalf("cut: %q", s)
	}
	if !strings.Contains(s, "characters left out ...]") {
		t.Fatalf("no note: %q", s)
	}
	// A stream the runner cut already: its head and tail, the count of
	// what lies between them in the note.
	runnerCut := newStream(bash.Stream{Head: []byte(strings.Repeat("h", 500)), Tail: []byte(strings.Repeat("t", 500)), Omitted: 1_000_000})
	s, _ = runnerCut.fit(300)
	if !strings.HasPrefix(s, "hhh") || !strings.HasSuffix(s, "ttt") || utf8.RuneCountInString(s) > 300 {
		t.Fatalf("runner cut: %q", s)
	}
	m := regexp.MustCompile(`\n\[\.\.\. ([\d,]+) characters left out \.\.\.\]\n`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no note: %q", s)
	}
	n, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	shown := int64(utf8.RuneCountInString(s) - utf8.RuneCountInString(m[0]))
	if n != 1_001_000-shown {
		t.Fatalf("note says %d left out; %d of %d shown", n, shown, 1_001_000)
	}
}

// FuzzFit: whatever the stream and the budget, a fitted stream is valid
// UTF-8 within the budget, whole when it fits, and keeps its first
// character when anything is shown.
func FuzzFit(f *testing.F) {
	f.Add([]byte("hello"), []byte(""), int64(0), int64(10))
	f.Add([]byte("a\xffb"), []byte("\xc3"), int64(5), int64(2))
	f.Add([]byte(strings.Repeat("é", 200)), []byte(strings.Repeat("x", 200)), int64(99999), int64(120))
	f.Fuzz(func(t *testing.T, head, tail []byte, omitted, budget int64) {
		if omitted < 0 || budget < 0 || budget > 1<<20 {
			return
		}
		if len(tail) > 0 && omitted == 0 {
			omitted = 1 // the runner returns a tail only when it left something out
		}
		st := newStream(bash.Stream{Head: head, Tail: tail, Omitted: omitted})
		s, cut := st.fit(budget)
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8: %q", s)
		}
		if n := int64(utf8.RuneCountInString(s)); n > budget {
			t.Fatalf("%d characters, budget %d: %q", n, budget, s)
		}
		if !cut && s != st.head {
			t.Fatalf("not cut but changed: %q", s)
		}
		if st.chars() <= budget && omitted == 0 && cut {
			t.Fatalf("cut though it fits: %q", s)
		}
		if s != "" && st.head != "" {
			r, _ := utf8.DecodeRuneInString(st.head)
			if first, _ := utf8.DecodeRuneInString(s); first != r {
				t.Fatalf("the first character %q was lost: %q", r, s)
			}
		}
	})
}
