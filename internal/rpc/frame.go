package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxMessage is the largest message either carrier accepts.
const DefaultMaxMessage = 8 << 20

// TooLargeError reports a message over the size limit. The reader has
// already skipped the rest of it, so the stream stays usable.
type TooLargeError struct {
	Size  int    // the message's length in bytes, without its line ending
	Limit int    // the limit it broke
	Head  []byte // the first bytes of the message, to recover its id from
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("message too large: %d bytes (the limit is %d)", e.Size, e.Limit)
}

// headSize is how much of an oversized message is kept to find its id.
const headSize = 4096

// NewTooLargeError describes msg, which broke limit.
func NewTooLargeError(msg []byte, limit int) *TooLargeError {
	return &TooLargeError{Size: len(msg), Limit: limit, Head: append([]byte(nil), msg[:min(len(msg), headSize)]...)}
}

// FrameReader reads newline-delimited JSON messages.
type FrameReader struct {
	r     *bufio.Reader
	limit int
}

// NewFrameReader returns a reader of messages of at most limit bytes
// (DefaultMaxMessage when limit <= 0).
func NewFrameReader(r io.Reader, limit int) *FrameReader {
	f := &FrameReader{r: bufio.NewReaderSize(r, 64<<10)}
	f.SetLimit(limit)
	return f
}

// SetLimit changes the limit for the messages read from now on
// (DefaultMaxMessage when limit <= 0): a client's initialize may bring its
// own maxMessageBytes after the reader started.
func (f *FrameReader) SetLimit(limit int) {
	if limit <= 0 {
		limit = DefaultMaxMessage
	}
	f.limit = limit
}

// Read returns the next non-blank line without its line ending ("\n" or
// "\r\n", or a final "\r" at end of input; further trailing "\r" are
// dropped too). A message — the line
// without its ending — over the limit is consumed and reported as
// *TooLargeError, whether or not a newline ends it; io.EOF ends the stream (a
// final line without a newline is still returned first).
func (f *FrameReader) Read() ([]byte, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

// Buffered reports whether bytes read from the stream after the last
// message returned are waiting in the reader: the next Read needs no read
// of the stream to start.
func (f *FrameReader) Buffered() bool { return f.r.Buffered() > 0 }

// readLine returns the next line without its ending. It holds at most
// limit+2 bytes of a line (a message of exactly the limit and "\r\n"); a
// longer line is skipped to its end and reported with its size.
func (f *FrameReader) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(buf)+len(chunk) > f.limit+2 {
			return nil, f.tooLarge(buf, chunk, err)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			msg := trimEnding(buf)
			if len(msg) > f.limit {
				return nil, &TooLargeError{Size: len(msg), Limit: f.limit, Head: headOf(msg)}
			}
			return msg, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			msg := trimEnding(buf)
			if len(msg) > f.limit {
				return nil, &TooLargeError{Size: len(msg), Limit: f.limit, Head: headOf(msg)}
			}
			return msg, nil
		default:
			return nil, err
		}
	}
}

// tooLarge skips the rest of a line that outgrew the limit and describes it.
func (f *FrameReader) tooLarge(buf, chunk []byte, err error) error {
	head := headOf(buf)
	if len(head) < headSize {
		head = headOf(append(head, chunk...))
	}
	size := len(buf) + len(chunk)
	last := lastTwo(lastTwo(nil, buf), chunk) // for the line ending
	if errors.Is(err, bufio.ErrBufferFull) {
		n, tail := f.skipLine()
		size += n
		last = lastTwo(last, tail)
	}
	size -= len(last) - len(trimEnding(last))
	if len(head) > size {
		head = head[:size]
	}
	return &TooLargeError{Size: size, Limit: f.limit, Head: head}
}

// lastTwo returns the last two bytes of a followed by b.
func lastTwo(a, b []byte) []byte {
	out := append(append([]byte(nil), a[max(0, len(a)-2):]...), b[max(0, len(b)-2):]...)
	return out[max(0, len(out)-2):]
}

// trimEnding drops a line's ending: a final "\n" (absent on a last line
// at end of input) and one "\r" before it.
func trimEnding(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

func headOf(b []byte) []byte { return append([]byte(nil), b[:min(len(b), headSize)]...) }

// skipLine discards input up to and including the next newline. It returns
// how many bytes it skipped and the last two of them.
func (f *FrameReader) skipLine() (int, []byte) {
	n, last := 0, []byte(nil)
	for {
		chunk, err := f.r.ReadSlice('\n')
		n += len(chunk)
		last = lastTwo(last, chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, last
		}
	}
}

// FrameWriter writes one message per line. It is safe for concurrent use:
// every message is written whole, never interleaved.
type FrameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewFrameWriter returns a writer of newline-delimited messages.
func NewFrameWriter(w io.Writer) *FrameWriter { return &FrameWriter{w: w} }

// Write writes msg and a newline. json.Marshal never emits a raw newline, so
// the line is the frame. The newline goes into msg's spare capacity when it
// has some (the encoders leave room), so that a reply is not copied to
// add it (issue 16): msg is given up to Write, and nothing else may use
// its backing array meanwhile.
func (f *FrameWriter) Write(msg []byte) error {
	var line []byte
	if len(msg) < cap(msg) {
		line = append(msg, '\n')
	} else {
		line = append(append(make([]byte, 0, len(msg)+1), msg...), '\n')
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err := f.w.Write(line)
	return err
}
