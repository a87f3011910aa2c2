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
	if limit <= 0 {
		limit = DefaultMaxMessage
	}
	return &FrameReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// Read returns the next non-blank line without its line ending. A line over
// the limit is consumed and reported as *TooLargeError; io.EOF ends the stream
// (a final line without a newline is still returned first).
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

func (f *FrameReader) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(buf)+len(chunk) > f.limit+1 {
			head := append(buf[:len(buf):len(buf)], chunk[:min(len(chunk), headSize)]...)
			size, last := len(buf)+len(chunk), lastOf(chunk)
			if errors.Is(err, bufio.ErrBufferFull) {
				n, l := f.skipLine()
				size, last = size+n, l
			}
			if last == '\n' {
				size-- // the line ending is not part of the message
			}
			return nil, &TooLargeError{Size: size, Limit: f.limit, Head: head[:min(len(head), headSize)]}
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		default:
			return nil, err
		}
	}
}

// skipLine discards input up to and including the next newline. It returns
// how many bytes it skipped and the last of them.
func (f *FrameReader) skipLine() (int, byte) {
	n, last := 0, byte(0)
	for {
		chunk, err := f.r.ReadSlice('\n')
		n += len(chunk)
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, last
		}
	}
}

func lastOf(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
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
// the line is the frame.
func (f *FrameWriter) Write(msg []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, msg...), '\n')
	_, err := f.w.Write(line)
	return err
}
