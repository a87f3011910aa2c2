package bash

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ring keeps the newest max bytes written to it. It grows on demand, so a
// command that prints little allocates little.
type ring struct {
	buf  []byte
	max  int
	head int  // index of the oldest byte once full
	full bool // len(buf) == max and writes wrap around
}

func (r *ring) write(p []byte) {
	if r.max <= 0 || len(p) == 0 {
		return
	}
	if len(p) >= r.max {
		if cap(r.buf) < r.max {
			r.buf = make([]byte, r.max)
		}
		r.buf = r.buf[:r.max]
		copy(r.buf, p[len(p)-r.max:])
		r.head, r.full = 0, true
		return
	}
	if !r.full {
		room := r.max - len(r.buf)
		if len(p) < room {
			r.buf = append(r.buf, p...)
			return
		}
		r.buf = append(r.buf, p[:room]...)
		p = p[room:]
		r.head, r.full = 0, true
	}
	for len(p) > 0 {
		n := copy(r.buf[r.head:], p)
		p = p[n:]
		r.head = (r.head + n) % r.max
	}
}

func (r *ring) len() int { return len(r.buf) }

// size is the memory the ring holds.
func (r *ring) size() int64 { return int64(cap(r.buf)) }

// bytes returns the kept bytes, oldest first, in a new slice.
func (r *ring) bytes() []byte {
	out := make([]byte, 0, len(r.buf))
	if !r.full {
		return append(out, r.buf...)
	}
	out = append(out, r.buf[r.head:]...)
	return append(out, r.buf[:r.head]...)
}

func (r *ring) reset() { r.buf, r.head, r.full = r.buf[:0], 0, false }

// capture collects one output stream of a one-shot command: its newest bytes
// in memory, enough for the characters the model may see, and — once the
// stream outgrows memory — all of it in a spill file. Only the goroutine
// reading the stream touches it until that goroutine is done.
type capture struct {
	tail   ring
	total  int64 // bytes seen
	chars  int64 // characters seen (UTF-8 sequence starts)
	spill  *spillFile
	err    error // why the spill file could not be written
	prefix string
	dir    string
}

func newCapture(dir, prefix string, maxChars int) *capture {
	// A character is at most 4 bytes, so this holds the last maxChars.
	return &capture{tail: ring{max: 4*maxChars + 4}, dir: dir, prefix: prefix}
}

func (c *capture) write(p []byte) {
	c.total += int64(len(p))
	c.chars += countChars(p)
	if c.spill == nil && c.err == nil && c.tail.len()+len(p) > c.tail.max {
		// Memory is about to drop the oldest bytes; until now it held the
		// whole stream, so the file starts complete.
		c.spill, c.err = createSpill(c.dir, c.prefix)
		if c.err == nil {
			c.spill.write(c.tail.bytes())
		}
	}
	if c.spill != nil {
		c.spill.write(p)
	}
	c.tail.write(p)
}

// drain reads r until end-of-file, a read deadline or an error.
func (c *capture) drain(r io.Reader, bufs *bufPool) {
	buf := bufs.get()
	defer bufs.put(buf)
	for {
		n, err := r.Read(*buf)
		if n > 0 {
			c.write((*buf)[:n])
		}
		if err != nil {
			return
		}
	}
}

// bufPool recycles read buffers, so a call that prints nothing does not
// allocate two of them.
type bufPool struct{ p sync.Pool }

func (b *bufPool) get() *[]byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return buf
	}
	buf := make([]byte, 32<<10)
	return &buf
}

func (b *bufPool) put(buf *[]byte) { b.p.Put(buf) }

// spillFile is a file of full output, capped at spillLimit bytes.
type spillFile struct {
	f    *os.File
	n    int64
	cut  bool  // the cap was reached
	err  error // first write error
	last byte  // last byte written, to know whether a newline is due
}

func createSpill(dir, prefix string) (*spillFile, error) {
	f, err := os.CreateTemp(dir, prefix+"-*.txt")
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	return &spillFile{f: f}, nil
}

func (s *spillFile) write(p []byte) {
	if s.err != nil || s.cut || len(p) == 0 {
		return
	}
	if room := spillLimit - s.n; int64(len(p)) > room {
		p, s.cut = p[:room], true
	}
	n, err := s.f.Write(p)
	s.n += int64(n)
	if n > 0 {
		s.last = p[n-1]
	}
	if err != nil {
		s.err = err
	}
}

// note appends a line of ours, past the cap if need be.
func (s *spillFile) note(line string) {
	if s.err != nil {
		return
	}
	if s.n > 0 && s.last != '\n' {
		line = "\n" + line
	}
	n, err := io.WriteString(s.f, line+"\n")
	s.n += int64(n)
	s.last = '\n'
	s.err = err
}

func (s *spillFile) finish() error {
	if s.cut {
		s.note(fmt.Sprintf("[spill file limit of %d bytes reached; later output was not saved]", int64(spillLimit)))
	}
	err := s.err
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// saveSpill writes the full output of a one-shot command to one file: stdout,
// then a [stderr] section, like the result text without markers. It returns
// the file's path; on failure no partial file is left behind.
func saveSpill(dir string, stdout, stderr *capture, bufs *bufPool) (path string, err error) {
	out := stdout.spill
	defer func() {
		if stderr.spill != nil {
			_ = stderr.spill.f.Close()           // best effort: a temporary file
			_ = os.Remove(stderr.spill.f.Name()) // best effort
		}
		if err != nil && out != nil {
			_ = out.f.Close()           // best effort: may be closed already
			_ = os.Remove(out.f.Name()) // best effort: a partial file misleads
		}
	}()
	if err = errors.Join(stdout.err, stderr.err); err != nil {
		return "", err
	}
	if out == nil {
		if out, err = createSpill(dir, "bash-output"); err != nil {
			return "", err
		}
		out.write(stdout.tail.bytes()) // never spilled, so memory holds it all
	}
	if out.cut {
		out.note(fmt.Sprintf("[spill file limit of %d bytes reached; later stdout was not saved]", int64(spillLimit)))
		out.cut = false
	}
	if stderr.total > 0 {
		out.note("[stderr]")
		out.n = 0 // stderr gets its own allowance
		if stderr.spill == nil {
			out.write(stderr.tail.bytes())
		} else if err = copySpill(out, stderr.spill, bufs); err != nil {
			return "", err
		}
	}
	if err = out.finish(); err != nil {
		return "", fmt.Errorf("write spill file %q: %w", out.f.Name(), err)
	}
	return out.f.Name(), nil
}

func copySpill(dst, src *spillFile, bufs *bufPool) error {
	if src.err != nil {
		return src.err
	}
	if _, err := src.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read spill file: %w", err)
	}
	buf := bufs.get()
	defer bufs.put(buf)
	for {
		n, err := src.f.Read(*buf)
		dst.write((*buf)[:n])
		if errors.Is(err, io.EOF) {
			dst.cut = dst.cut || src.cut
			return nil
		}
		if err != nil {
			return fmt.Errorf("read spill file: %w", err)
		}
	}
}

// countChars counts UTF-8 sequence starts, which is the character count of
// valid UTF-8 and does not depend on where reads split the stream.
func countChars(p []byte) int64 {
	var n int64
	for _, b := range p {
		if b&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// tailChars returns the suffix of p holding its last n characters.
func tailChars(p []byte, n int64) []byte {
	if n <= 0 {
		return nil
	}
	var count int64
	for i := len(p) - 1; i >= 0; i-- {
		if p[i]&0xC0 != 0x80 {
			count++
			if count == n {
				return p[i:]
			}
		}
	}
	// Fewer than n characters: drop continuation bytes whose lead byte the
	// ring already let go.
	for len(p) > 0 && p[0]&0xC0 == 0x80 {
		p = p[1:]
	}
	return p
}

// incompleteSuffix returns how many bytes at the end of p start a UTF-8
// sequence that has not been completed yet.
func incompleteSuffix(p []byte) int {
	for i := 1; i <= 3 && i <= len(p); i++ {
		b := p[len(p)-i]
		if b&0xC0 == 0x80 {
			continue
		}
		need := 0
		switch {
		case b&0xE0 == 0xC0:
			need = 2
		case b&0xF0 == 0xE0:
			need = 3
		case b&0xF8 == 0xF0:
			need = 4
		}
		if need > i {
			return i
		}
		return 0
	}
	return 0
}
