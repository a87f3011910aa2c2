package bash

import "sync"

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
