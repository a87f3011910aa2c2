package persistent

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/shellport/shellport/tools"
)

// Issue 3: seq 1 2000000 is bounded to maxOutputChars, keeps head and tail,
// says exactly how much was left out, and the spill file holds it all.
func TestHugeOutputBoundedWithExactSpill(t *testing.T) {
	f := newFixture(t, tools.Config{MaxOutputChars: 2000})
	res := f.run("seq 1 2000000")
	var want bytes.Buffer
	for i := 1; i <= 2000000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if structured(t, res, "truncated") != true {
		t.Fatalf("not truncated: %v", res.Structured)
	}
	path, _ := structured(t, res, "spillPath").(string)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("spill file: %v", err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("spill file differs: %d bytes, want %d", len(got), want.Len())
	}
	if !strings.HasPrefix(res.Text, "1\n2\n3\n") || !strings.HasSuffix(res.Text, "1999999\n2000000\n") {
		t.Fatalf("head or tail missing: %q … %q", res.Text[:40], res.Text[len(res.Text)-40:])
	}
	head, rest, ok := strings.Cut(res.Text, "[... ")
	notice, tail, ok2 := strings.Cut(rest, " ...]\n")
	if !ok || !ok2 {
		t.Fatalf("no gap notice in %q", res.Text)
	}
	total := want.Len()
	left := total - len(head) - len(tail)
	lines := 2000000 - strings.Count(head, "\n") - strings.Count(tail, "\n")
	wantNotice := fmt.Sprintf("%s characters (%s lines) left out of %s characters; full output in %s",
		commas(int64(left)), commas(int64(lines)), commas(int64(total)), path)
	if notice != wantNotice {
		t.Fatalf("notice %q\nwant   %q", notice, wantNotice)
	}
	if n := len([]rune(head + tail)); n > 2000 {
		t.Fatalf("kept %d characters, bound is 2000", n)
	}
	f.expect("echo after", "after\n")
}

// Issue 3: memory stays bounded whatever the command prints; yes runs
// until a short timeout.
func TestEndlessOutputKeepsMemoryBounded(t *testing.T) {
	f := newFixture(t, tools.Config{MaxOutputChars: 1000, TimeoutMs: 1500})
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := f.run("yes")
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if structured(t, res, "timedOut") != true || structured(t, res, "shellReset") != true {
		t.Fatalf("structured %v", res.Structured)
	}
	path, _ := structured(t, res, "spillPath").(string)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	const bound = 32 << 20
	if st.Size() < 2*bound/4 && st.Size() < maxSpillBytes {
		t.Logf("yes printed only %d bytes in the time; memory check is weaker", st.Size())
	}
	if after.HeapInuse > before.HeapInuse+bound {
		t.Fatalf("heap grew from %d to %d bytes while yes printed %d bytes", before.HeapInuse, after.HeapInuse, st.Size())
	}
	if !strings.HasPrefix(res.Text, "y\ny\n") || !strings.Contains(res.Text, "[timed out after 1.5 seconds;") {
		t.Fatalf("got %q", res.Text)
	}
	if len([]rune(res.Text)) > 1000+600 {
		t.Fatalf("text of %d characters for a bound of 1000 plus notices", len([]rune(res.Text)))
	}
}

// Issue 3: binary output is decoded with replacement, counted and stated.
func TestBinaryOutput(t *testing.T) {
	f := newFixture(t, tools.Config{})
	res := f.run(`printf 'ok\xff\xfe\x00\x01end\n'; printf '\xe2\x82'`)
	if res.Text != "ok\ufffd\ufffdend\n\ufffd\ufffd\n[4 bytes of the output were not valid UTF-8 and were replaced with U+FFFD]" {
		t.Fatalf("got %q", res.Text)
	}
	if structured(t, res, "invalidUtf8") != 4 {
		t.Fatalf("invalidUtf8 %v", res.Structured["invalidUtf8"])
	}
	res = f.run("head -c 20000 /dev/urandom; echo")
	if n, _ := res.Structured["invalidUtf8"].(int); n == 0 {
		t.Fatalf("random bytes reported as valid UTF-8")
	}
	f.expect("echo é", "é\n")
}

// Issue 3: escape sequences removed and carriage-return overwrites
// collapsed to the final line state.
func TestANSIAndCarriageReturns(t *testing.T) {
	f := newFixture(t, tools.Config{})
	f.expect(`printf '\033[1;31mred\033[0m \033]0;title\007plain\n'`, "red plain\n")
	f.expect(`for i in 10 50 100; do printf '\rprogress %3d%%' $i; done; echo`, "progress 100%\n")
	f.expect(`printf 'downloading 1/3\r\033[Kdone\n'`, "done\n")
	f.expect(`printf 'abcdef\rXY\n'`, "XYcdef\n")
	f.expect(`printf 'crlf line\r\n'`, "crlf line\n")
	f.expect(`printf 'ab\bc\n'`, "ac\n")
}
