package persistent

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/tools/output"
)

// Issue 3: seq 1 2000000 is bounded to maxOutputChars, keeps head and tail,
// says exactly how much was left out, and the spill file holds it all.
func TestHugeOutputBoundedWithExactSpill(t *testing.T) {
	f := newFixture(t, Config{MaxOutputChars: 2000})
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
	if !strings.HasPrefix(res.Text, "1\n2\n3\n") || !strings.HasSuffix(res.Text, "1999999\n2000000\n[output truncated; full output: "+path+"]") {
		t.Fatalf("head or tail missing: %q … %q", res.Text[:40], res.Text[len(res.Text)-40:])
	}
	head, rest, ok := strings.Cut(res.Text, "[... ")
	notice, tail, ok2 := strings.Cut(rest, " ...]\n")
	tail = strings.TrimSuffix(tail, "[output truncated; full output: "+path+"]")
	if !ok || !ok2 {
		t.Fatalf("no gap notice in %q", res.Text)
	}
	total := want.Len()
	left := total - len(head) - len(tail)
	lines := 2000000 - strings.Count(head, "\n") - strings.Count(tail, "\n")
	wantNotice := fmt.Sprintf("%s characters (%s lines) left out", output.Commas(int64(left)), output.Commas(int64(lines)))
	if notice != wantNotice {
		t.Fatalf("notice %q\nwant   %q", notice, wantNotice)
	}
	if n := len([]rune(head + tail)); n > 2000 {
		t.Fatalf("kept %d characters, bound is 2000", n)
	}
	f.expect("echo after", "after\n")
}

// Issue 3: memory stays bounded whatever the command prints; yes runs
// until a short timeout while the test samples the heap.
func TestEndlessOutputKeepsMemoryBounded(t *testing.T) {
	f := newFixture(t, Config{MaxOutputChars: 1000, TimeoutMs: 2000})
	f.expect("true", "[no output]")
	const bound = 6 << 20
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	stop, sampled := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				sampled <- peak
				return
			case <-time.After(10 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
		}
	}()
	res := f.run("yes $(printf 'y%.0s' {1..1000})")
	close(stop)
	peak := <-sampled
	if structured(t, res, "timedOut") != true || structured(t, res, "shellReset") != true {
		t.Fatalf("structured %v", res.Structured)
	}
	var total int64
	if _, after, ok := strings.Cut(res.Text, "[... "); ok {
		digits := strings.ReplaceAll(strings.Fields(after)[0], ",", "")
		total, _ = strconv.ParseInt(digits, 10, 64) // left out; what was kept is less than a bound
	}
	if total <= bound {
		t.Skipf("only %d characters printed; too few to tell bounded memory from unbounded", total)
	}
	if growth := int64(peak) - int64(base.HeapAlloc); growth > bound {
		t.Fatalf("heap grew by %d bytes while the command printed %d characters", growth, total)
	}
	if !strings.HasPrefix(res.Text, "yyy") || !strings.Contains(res.Text, "\n[timed out after 2 seconds]\n") {
		t.Fatalf("got %q", res.Text)
	}
	if n := len([]rune(res.Text)); n > 1000+600 {
		t.Fatalf("text of %d characters for a bound of 1000 plus notices", n)
	}
	path, _ := structured(t, res, "spillPath").(string)
	if st, err := os.Stat(path); err != nil || st.Size() > output.SpillLimit+4096 {
		t.Fatalf("spill file %v %v", st, err)
	}
}

// Issue 3: binary output is decoded with replacement, counted and stated.
func TestBinaryOutput(t *testing.T) {
	f := newFixture(t, Config{})
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
	f := newFixture(t, Config{})
	f.expect(`printf '\033[1;31mred\033[0m \033]0;title\007plain\n'`, "red plain\n")
	f.expect(`for i in 10 50 100; do printf '\rprogress %3d%%' $i; done; echo`, "progress 100%\n")
	f.expect(`printf 'downloading 1/3\r\033[Kdone\n'`, "done\n")
	f.expect(`printf 'abcdef\rXY\n'`, "XYcdef\n")
	f.expect(`printf 'crlf line\r\n'`, "crlf line\n")
	f.expect(`printf 'ab\bc\n'`, "ac\n")
}
