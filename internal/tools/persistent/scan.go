package persistent

import "bytes"

// maxFrameTail bounds what may follow the marker: " <status>\n" with a
// status of at most three digits, and a \r if the command turned onlcr
// back on.
const maxFrameTail = 8

// scanner finds the end-of-command frame, MARKER " " STATUS "\n", in the
// terminal stream. While no marker is armed everything is output. A marker
// may arrive split across reads, so up to len(marker)-1 trailing bytes that
// could begin it are held back until the next read decides.
type scanner struct {
	marker  []byte
	pending []byte // held-back bytes that may start the marker
	work    []byte
	inFrame bool // the marker has been seen; reading the status
	tail    int  // bytes of frame tail consumed
	status  int
	digits  int
}

// arm starts looking for marker.
func (s *scanner) arm(marker []byte) {
	*s = scanner{marker: marker, work: s.work[:0], pending: s.pending[:0]}
}

// disarm stops looking and returns the held-back bytes, which were output.
func (s *scanner) disarm() []byte {
	held := s.pending
	s.marker, s.pending, s.inFrame = nil, nil, false
	return held
}

// feed passes output bytes to text and reports whether the frame ended in
// chunk. When it did, status is the command's exit status (-1 if the frame
// was malformed) and rest is what followed the frame; rest may alias
// internal storage, so use it before the next feed.
func (s *scanner) feed(chunk []byte, text func([]byte)) (done bool, status int, rest []byte) {
	if s.marker == nil {
		text(chunk)
		return false, 0, nil
	}
	data := chunk
	if len(s.pending) > 0 {
		s.work = append(append(s.work[:0], s.pending...), chunk...)
		s.pending = s.pending[:0]
		data = s.work
	}
	if !s.inFrame {
		i := bytes.Index(data, s.marker)
		if i < 0 {
			keep := partialSuffix(data, s.marker)
			if len(data)-keep > 0 {
				text(data[:len(data)-keep])
			}
			s.pending = append(s.pending, data[len(data)-keep:]...)
			return false, 0, nil
		}
		if i > 0 {
			text(data[:i])
		}
		data = data[i+len(s.marker):]
		s.inFrame, s.tail, s.status, s.digits = true, 0, 0, 0
	}
	for i, x := range data {
		s.tail++
		switch {
		case s.tail == 1 && x == ' ':
		case s.tail > 1 && x >= '0' && x <= '9' && s.digits < 3:
			s.status = s.status*10 + int(x-'0')
			s.digits++
		case s.tail > 1 && x == '\r':
		case s.tail > 1 && x == '\n' && s.digits > 0:
			s.marker, s.inFrame = nil, false
			return true, s.status, data[i+1:]
		default:
			s.marker, s.inFrame = nil, false
			return true, -1, data[i:]
		}
		if s.tail > maxFrameTail {
			s.marker, s.inFrame = nil, false
			return true, -1, data[i+1:]
		}
	}
	return false, 0, nil
}

// partialSuffix returns the length of the longest proper suffix of data
// that is a prefix of marker.
func partialSuffix(data, marker []byte) int {
	for k := min(len(marker)-1, len(data)); k > 0; k-- {
		if bytes.HasPrefix(marker, data[len(data)-k:]) {
			return k
		}
	}
	return 0
}
