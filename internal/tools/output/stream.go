package output

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits of a live stream (issue 17). They bound what one streaming call
// costs whatever its command prints and however slowly the client reads.
const (
	// StreamInterval is the least time between two pieces of one call's
	// stream: a fast producer is coalesced into at most 1/StreamInterval
	// pieces a second (20), plus the last one.
	StreamInterval = 50 * time.Millisecond
	// StreamBuffer caps the text waiting to be sent while the client is
	// still taking the previous piece; past it, text is left out and the
	// next piece says how much.
	StreamBuffer = 256 << 10
	// StreamLimit caps the text one call streams, in bytes; past it the
	// stream says it stopped, and the result (with its own cut) follows
	// when the command ends.
	StreamLimit = 1 << 20
)

// Piece is one notification of a live stream: the new text, in order.
// Dropped counts the characters left out just before the piece's note
// because the client read too slowly (0 when none were).
type Piece struct {
	Text    string
	Dropped int64
}

// Stream turns the clean text of a running command (what the model will
// read, as Options.Observe sees it) into pieces for a client: coalesced
// to at most one piece per StreamInterval, bounded in memory by
// StreamBuffer and in total by StreamLimit. A slow send never blocks the
// writer: while one piece is being sent, text collects up to StreamBuffer
// and what does not fit is counted and left out, with a note in the
// stream. Pieces are sent one at a time, in order, from a goroutine of
// the stream's own; Close sends the last one. A Stream is only made for a
// caller that asked for one: a call without one pays nothing.
type Stream struct {
	send func(Piece)

	mu       sync.Mutex
	idle     sync.Cond // signalled when a send ends
	buf      []byte
	dropped  int64 // characters left out since the last piece (buffer full)
	total    int   // bytes taken into the stream
	limited  bool  // StreamLimit reached
	noted    bool  // the limit's note is in a piece
	lastByte byte  // the last byte taken, to start notes on a line of their own
	sending  bool
	timer    *time.Timer
	last     time.Time // when the last piece went out
	closed   bool
}

// NewStream returns a stream that hands its pieces to send. send may block
// (a slow client); it is never called by two goroutines at once.
func NewStream(send func(Piece)) *Stream {
	s := &Stream{send: send}
	s.idle.L = &s.mu
	return s
}

// Write takes clean text as it is produced; it never blocks on the client.
// It has the signature of Options.Observe and keeps no reference to p.
func (s *Stream) Write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.limited || len(p) == 0 {
		return
	}
	if room := StreamLimit - s.total; len(p) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		p, s.limited = p[:cut], true
	}
	s.total += len(p)
	switch {
	case s.dropped > 0 || len(s.buf)+len(p) > StreamBuffer:
		// Once text is left out, everything is until the next piece, so
		// the note stands exactly where the gap is.
		s.dropped += int64(utf8.RuneCount(p))
	default:
		s.buf = append(s.buf, p...)
		if len(p) > 0 {
			s.lastByte = p[len(p)-1]
		}
	}
	s.schedule()
}

// schedule arranges for the next piece to go out once the interval since
// the last one has passed. Called with s.mu held.
func (s *Stream) schedule() {
	if s.sending || s.timer != nil || s.closed {
		return
	}
	wait := StreamInterval - time.Since(s.last)
	if wait < 0 {
		wait = 0
	}
	s.timer = time.AfterFunc(wait, s.flush)
}

// flush sends what has collected, one piece at a time.
func (s *Stream) flush() {
	s.mu.Lock()
	s.timer = nil
	if s.closed || s.sending {
		s.mu.Unlock()
		return
	}
	piece, ok := s.take()
	if !ok {
		s.mu.Unlock()
		return
	}
	s.sending = true
	s.mu.Unlock()

	s.send(piece)

	s.mu.Lock()
	s.sending = false
	s.last = time.Now()
	s.idle.Broadcast()
	if len(s.buf) > 0 || s.dropped > 0 || s.limited && !s.noted {
		s.schedule()
	}
	s.mu.Unlock()
}

// take empties the buffer into a piece, with the notes it is due. Called
// with s.mu held.
func (s *Stream) take() (Piece, bool) {
	if len(s.buf) == 0 && s.dropped == 0 && (!s.limited || s.noted) {
		return Piece{}, false
	}
	var b strings.Builder
	b.Write(s.buf)
	last := s.lastByte
	piece := Piece{Dropped: s.dropped}
	if s.dropped > 0 {
		b.WriteString(noteLine(last, "[... "+Commas(s.dropped)+" characters of live output left out: the client read too slowly ...]"))
		last = '\n'
	}
	if s.limited && !s.noted {
		b.WriteString(noteLine(last, "[live output stops here: it reached "+Commas(StreamLimit)+" bytes; the result follows when the command ends]"))
		s.noted = true
		last = '\n'
	}
	s.lastByte = last
	s.buf = s.buf[:0]
	s.dropped = 0
	piece.Text = b.String()
	return piece, true
}

// noteLine puts a note of ours on a line of its own.
func noteLine(last byte, note string) string {
	if last != 0 && last != '\n' {
		return "\n" + note + "\n"
	}
	return note + "\n"
}

// Close ends the stream: it waits for a piece being sent, then sends what
// is left unless discard is set (a cancelled call, whose client must see
// nothing after its cancellation). Nothing is sent after Close returns,
// whatever the command's writers still do.
func (s *Stream) Close(discard bool) {
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	for s.sending {
		s.idle.Wait()
	}
	var piece Piece
	ok := false
	if !discard {
		piece, ok = s.take()
	}
	s.buf = nil
	s.mu.Unlock()
	if ok {
		s.send(piece)
	}
}
