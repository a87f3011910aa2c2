package editor

import (
	"bytes"
	"context"
	"io"
)

// scanBufSize is the read buffer of a streaming view. Lines longer than it
// are read in pieces; only what is shown is kept.
const scanBufSize = 256 << 10

// minScanBuf is the smallest buffer a view starts with; the file may have
// grown since it was measured, and a line longer than the buffer is still
// read correctly, only in more pieces.
const minScanBuf = 512

// scanner reads a file once, front to back, through a fixed buffer. It
// hands out lines as slices of that buffer (valid until the next call),
// counts every newline and notes any NUL byte as it reads, so a view of a
// huge file allocates nothing per line and still knows the line count.
type scanner struct {
	rd       io.Reader
	buf      []byte
	r, w     int // unread bytes are buf[r:w]
	eof      bool
	err      error
	nul      bool  // a NUL byte was read
	newlines int   // '\n' bytes read so far
	size     int64 // bytes read so far
	last     byte  // last byte read
	long     []byte
}

// newScannerSize uses a buffer of n bytes; tests use tiny buffers to
// exercise lines longer than the buffer.
func newScannerSize(rd io.Reader, n int) *scanner {
	return &scanner{rd: rd, buf: make([]byte, n)}
}

// fill reads more data after moving unread bytes to the front. It reports
// false at end of file or on a read error.
func (s *scanner) fill() bool {
	if s.r > 0 {
		s.w = copy(s.buf, s.buf[s.r:s.w])
		s.r = 0
	}
	for !s.eof && s.w < len(s.buf) {
		n, err := s.rd.Read(s.buf[s.w:])
		if n > 0 {
			chunk := s.buf[s.w : s.w+n]
			s.nul = s.nul || bytes.IndexByte(chunk, 0) >= 0
			s.newlines += bytes.Count(chunk, nl)
			s.size += int64(n)
			s.last = chunk[n-1]
			s.w += n
		}
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.err, s.eof = err, true
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// sniff reads until at least n bytes are buffered or the file ends.
func (s *scanner) sniff(n int) {
	for s.w-s.r < n && s.fill() {
	}
}

// skip passes over n lines and reports how many it passed.
func (s *scanner) skip(ctx context.Context, n int) int {
	done := 0
	partial := false // bytes of an unfinished line were dropped
	for done < n {
		win := s.buf[s.r:s.w]
		c := bytes.Count(win, nl)
		if done+c >= n {
			for ; done < n; done++ {
				s.r += bytes.IndexByte(s.buf[s.r:s.w], '\n') + 1
			}
			return done
		}
		done += c
		if c > 0 {
			s.r += bytes.LastIndexByte(win, '\n') + 1
			partial = false
		}
		if s.w-s.r == len(s.buf) {
			s.r, partial = s.w, true // a line longer than the buffer: its start is not needed
		}
		if ctx.Err() != nil {
			return done
		}
		if !s.fill() {
			if s.w > s.r || partial {
				done++ // a last line without a final newline
				s.r = s.w
			}
			return done
		}
	}
	return done
}

// next returns the next line without its '\n', whether a '\n' ended it and
// the line's full length in bytes. Of a line longer than keep bytes only
// the first keep bytes (or more) are returned. ok is false at end of file.
func (s *scanner) next(keep int) (line []byte, ended bool, full int, ok bool) {
	for {
		if i := bytes.IndexByte(s.buf[s.r:s.w], '\n'); i >= 0 {
			line = s.buf[s.r : s.r+i]
			s.r += i + 1
			return line, true, i, true
		}
		if s.w-s.r == len(s.buf) {
			return s.nextLong(keep)
		}
		if !s.fill() {
			if s.w > s.r {
				line = s.buf[s.r:s.w]
				s.r = s.w
				return line, false, len(line), true
			}
			return nil, false, 0, false
		}
	}
}

// nextLong reads a line that does not fit in the buffer, keeping its first
// keep bytes in a separate slice.
func (s *scanner) nextLong(keep int) (line []byte, ended bool, full int, ok bool) {
	s.long = s.long[:0]
	for {
		win := s.buf[s.r:s.w]
		i := bytes.IndexByte(win, '\n')
		part := win
		if i >= 0 {
			part = win[:i]
		}
		if room := keep - len(s.long); room > 0 {
			s.long = append(s.long, part[:min(room, len(part))]...)
		}
		full += len(part)
		if i >= 0 {
			s.r += i + 1
			return s.long, true, full, true
		}
		s.r = s.w
		if !s.fill() {
			return s.long, false, full, true
		}
	}
}

// drain reads the rest of the file so that lines() is the file's total.
func (s *scanner) drain(ctx context.Context) {
	for ctx.Err() == nil {
		s.r = s.w
		if !s.fill() {
			return
		}
	}
}

// lines returns the number of lines read so far; after drain, the file's
// line count. A final newline does not start another line.
func (s *scanner) lines() int {
	n := s.newlines
	if s.size > 0 && s.last != '\n' {
		n++
	}
	return n
}
