package persistent

import "bytes"

// The frame the driver prints to the terminal after each command:
// ESC _ "SP" <32 upper-case hex digits> ESC \, an APC string that a real
// terminal would not display. It has no lower-case letter, carriage return,
// newline or tab, so no output setting of the terminal (olcuc, onlcr,
// ocrnl, tab expansion, fill characters) can change it.
const (
	framePrefix = "\x1b_SP"
	frameSuffix = "\x1b\\"
	tokenLen    = 32
	frameLen    = len(framePrefix) + tokenLen + len(frameSuffix)
)

// endToken is the token of the frame the shell prints when its command
// loop ends; a real report never carries it.
const endToken = "00000000000000000000000000000000"

// frameAction is what the shell decided about a well-formed frame.
type frameAction int

const (
	frameText frameAction = iota // not the driver's: the bytes are output
	frameDrop                    // the driver's, but not the end of a call: dropped
	frameEnd                     // the end of the running call
)

// scanner finds frames in the terminal stream. Everything that is not a
// frame the caller accepts is passed on as output, exactly. A frame may
// arrive split across reads, so up to frameLen-1 trailing bytes that could
// begin one are held back until the next read decides.
type scanner struct {
	pending []byte // held-back bytes that may start a frame
	work    []byte
}

// feed passes chunk through. text gets output; frame is asked about each
// well-formed frame, after the output before it has been passed on. feed
// returns at the first frame judged frameEnd, with what followed it; rest
// may alias internal storage, so use it before the next feed.
func (s *scanner) feed(chunk []byte, text func([]byte), frame func(token []byte) frameAction) (done bool, rest []byte) {
	data := chunk
	if len(s.pending) > 0 {
		s.work = append(append(s.work[:0], s.pending...), chunk...)
		s.pending = s.pending[:0]
		data = s.work
	}
	start, pos := 0, 0
	for {
		i := bytes.IndexByte(data[pos:], 0x1b)
		if i < 0 {
			break
		}
		k := pos + i
		switch frameAt(data[k:]) {
		case frameWhole:
			if k > start {
				text(data[start:k])
			}
			start = k
			switch frame(data[k+len(framePrefix) : k+len(framePrefix)+tokenLen]) {
			case frameEnd:
				return true, data[k+frameLen:]
			case frameDrop:
				start = k + frameLen
				pos = start
				continue
			}
		case framePartial:
			if k > start {
				text(data[start:k])
			}
			s.pending = append(s.pending, data[k:]...)
			return false, nil
		}
		pos = k + 1
	}
	if start < len(data) {
		text(data[start:])
	}
	return false, nil
}

// flush returns the held-back bytes, which were output after all.
func (s *scanner) flush() []byte {
	held := s.pending
	s.pending = nil
	return held
}

type frameMatch int

const (
	frameNone    frameMatch = iota
	framePartial            // b is a proper prefix of a frame
	frameWhole              // b starts with a frame
)

// frameAt reports whether b, which starts with ESC, starts with a frame.
func frameAt(b []byte) frameMatch {
	for i := 0; i < frameLen; i++ {
		if i == len(b) {
			return framePartial
		}
		x := b[i]
		var ok bool
		switch {
		case i < len(framePrefix):
			ok = x == framePrefix[i]
		case i < len(framePrefix)+tokenLen:
			ok = x >= '0' && x <= '9' || x >= 'A' && x <= 'F'
		default:
			ok = x == frameSuffix[i-len(framePrefix)-tokenLen]
		}
		if !ok {
			return frameNone
		}
	}
	return frameWhole
}
