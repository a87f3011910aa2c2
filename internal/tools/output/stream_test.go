package output

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// collect is a stream's client: it records pieces, optionally blocking
// in send until released.
type collect struct {
	mu     sync.Mutex
	pieces []Piece
	block  chan struct{} // when not nil, every send waits for it to close
	first  chan struct{} // closed at the first send
	once   sync.Once
}

func (c *collect) send(p Piece) {
	c.once.Do(func() { close(c.first) })
	if c.block != nil {
		<-c.block
	}
	c.mu.Lock()
	c.pieces = append(c.pieces, p)
	c.mu.Unlock()
}

func (c *collect) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, p := range c.pieces {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Pieces joined are the text written, in order, and Close sends the rest.
func TestStreamKeepsOrder(t *testing.T) {
	c := &collect{first: make(chan struct{})}
	s := NewStream(c.send)
	var want strings.Builder
	for i := range 200 {
		line := strings.Repeat("é", i%7) + "line\n"
		want.WriteString(line)
		s.Write([]byte(line))
	}
	s.Close(false)
	if got := c.text(); got != want.String() {
		t.Errorf("joined %q, want %q", got, want.String())
	}
	s.Write([]byte("late\n")) // after Close: ignored
	if strings.Contains(c.text(), "late") {
		t.Error("text written after Close was sent")
	}
}

// Issue 17: a client that does not read never blocks the writer, and what
// waits for it stays within StreamBuffer; what was left out is counted and
// said in the stream.
func TestStreamSlowClientNeverBlocksTheWriter(t *testing.T) {
	c := &collect{first: make(chan struct{}), block: make(chan struct{})}
	s := NewStream(c.send)
	s.Write([]byte("first\n"))
	<-c.first // the first piece is being sent and blocks
	line := []byte(strings.Repeat("x", 99) + "\n")
	written := make(chan struct{})
	go func() {
		for range 10000 { // 1 MB, past StreamBuffer
			s.Write(line)
		}
		close(written)
	}()
	select {
	case <-written:
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("the writer blocked on a client that does not read")
	}
	s.mu.Lock()
	buffered, dropped := len(s.buf), s.dropped
	s.mu.Unlock()
	if buffered > StreamBuffer {
		t.Errorf("%d bytes buffered, the cap is %d", buffered, StreamBuffer)
	}
	if dropped == 0 {
		t.Error("nothing was counted as left out")
	}
	close(c.block)
	s.Close(false)
	text := c.text()
	if !strings.Contains(text, "characters of live output left out: the client read too slowly") {
		t.Errorf("the stream does not say what was left out; it ends %q", text[max(0, len(text)-200):])
	}
	var counted int64
	for _, p := range c.pieces {
		counted += p.Dropped
	}
	if counted != dropped {
		t.Errorf("pieces count %d dropped, the stream %d", counted, dropped)
	}
}

// Past StreamLimit the stream says it stopped, once, and sends nothing more.
func TestStreamLimit(t *testing.T) {
	c := &collect{first: make(chan struct{})}
	s := NewStream(c.send)
	chunk := []byte(strings.Repeat("€", 1000)) // 3,000 bytes, cut inside a character at the limit
	for range StreamLimit/len(chunk) + 10 {
		s.Write(chunk)
	}
	s.Close(false)
	text := c.text()
	if n := strings.Count(text, "[live output stops here"); n != 1 {
		t.Errorf("%d limit notes", n)
	}
	if body := text[:strings.Index(text, "\n[live output")]; len(body) > StreamLimit || strings.ContainsRune(body, '\uFFFD') {
		t.Errorf("streamed %d bytes (limit %d) or cut a character", len(body), StreamLimit)
	}
}

// A discarding Close (a cancelled call) sends nothing more, even what was
// waiting.
func TestStreamDiscard(t *testing.T) {
	c := &collect{first: make(chan struct{})}
	s := NewStream(c.send)
	s.Write([]byte("pending\n"))
	s.Close(true)
	time.Sleep(2 * StreamInterval) // a timer that fired late must find the stream closed
	if got := c.text(); got != "" && got != "pending\n" {
		t.Errorf("after a discarding close: %q", got)
	}
	n := len(c.pieces)
	s.Write([]byte("more\n"))
	time.Sleep(2 * StreamInterval)
	if len(c.pieces) != n {
		t.Error("a piece was sent after Close")
	}
}

// The cost of streaming a command's output: what Write does per piece of
// output, and the pieces it sends, with a client that takes them at once.
func BenchmarkStreamWrite(b *testing.B) {
	line := []byte("a line of output such as a test runner prints, of about eighty bytes or so\n")
	s := NewStream(func(Piece) {})
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n++; n == StreamLimit/len(line) { // a new call before the limit
			s.Close(false)
			s, n = NewStream(func(Piece) {}), 0
		}
		s.Write(line)
	}
	s.Close(false)
}

// A capture observed late (a persistent call starting after output
// arrived between calls) shows the observer what it already holds, then
// what follows: the stream and the result start alike.
func TestCaptureObserveLate(t *testing.T) {
	c := NewCapture(Options{MaxChars: 100, SpillDir: t.TempDir()})
	_, _ = c.Write([]byte("between calls\n"))
	var seen strings.Builder
	c.Observe(func(p []byte) { seen.Write(p) })
	_, _ = c.Write([]byte("the call's own\n"))
	text := Finish(100, Section{Capture: c})
	if seen.String() != text.Body || text.Body != "between calls\nthe call's own\n" {
		t.Errorf("observed %q, result %q", seen.String(), text.Body)
	}
}
