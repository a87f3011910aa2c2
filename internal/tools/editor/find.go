package editor

import "bytes"

// finder searches for one pattern. bytes.Index scans for the pattern's
// first byte, which in source code is often a common letter; finder scans
// for the pattern's rarest byte instead — rarest in a sample of the file
// searched, ties broken by a fixed ranking of byte frequency in text — so
// a search through a large file mostly runs at memchr speed. When that
// byte proves common after all it falls back to bytes.Index.
type finder struct {
	pat   []byte
	rare  byte
	off   int // position of rare in pat
	fails int // candidates that did not match
	// skip, when set, makes index a Horspool search on pairs of bytes
	// (see horspool): for a long pattern none of whose bytes is rare in
	// the file.
	skip *[1 << 16]uint8
}

// Thresholds of the Horspool search: a pattern of at least horspoolMin
// bytes whose rarest byte still occurs more than once per
// horspoolDensity bytes of the sample.
const (
	horspoolMin     = 16
	horspoolDensity = 512
)

// sampleBytes is how much of the file newFinder looks at to rank bytes.
const sampleBytes = 64 << 10

func newFinder(pat, data []byte) *finder {
	f := &finder{pat: pat}
	if len(pat) == 0 {
		return f
	}
	var seen [256]int
	for _, c := range data[:min(len(data), sampleBytes)] {
		seen[c]++
	}
	best := -1
	for i, c := range pat[:min(len(pat), 64)] {
		if r := seen[c]<<8 | byteRank(c); best < 0 || r < best {
			best, f.rare, f.off = r, c, i
		}
	}
	if n := min(len(data), sampleBytes); len(pat) >= horspoolMin && seen[f.rare]*horspoolDensity > n {
		// Every byte of the pattern is common here (a line of source
		// code in a file of such lines): scanning for the rarest one
		// would stop every few dozen bytes.
		f.skip = new([1 << 16]uint8)
		far := uint8(min(len(pat)-1, 255))
		for i := range f.skip {
			f.skip[i] = far
		}
		for j := 1; j <= len(pat)-2; j++ {
			f.skip[pair(pat[j-1], pat[j])] = uint8(min(len(pat)-1-j, 255))
		}
	}
	return f
}

// index returns the offset of the first occurrence of the pattern in s, or
// -1.
func (f *finder) index(s []byte) int {
	n := len(f.pat)
	if n <= 1 || len(s) < 64 || f.fails > 64+len(s)>>10 {
		return bytes.Index(s, f.pat)
	}
	if f.skip != nil {
		return f.horspool(s)
	}
	for i := f.off; i < len(s); {
		j := bytes.IndexByte(s[i:], f.rare)
		if j < 0 {
			return -1
		}
		start := i + j - f.off
		if start+n > len(s) {
			return -1
		}
		if bytes.Equal(s[start:start+n], f.pat) {
			return start
		}
		if f.fails++; f.fails > 64+len(s)>>10 {
			// The rare byte is common here: search the rest the usual way.
			if k := bytes.Index(s[start+1:], f.pat); k >= 0 {
				return start + 1 + k
			}
			return -1
		}
		i += j + 1
	}
	return -1
}

// horspool is index by Horspool's method on pairs of bytes: look at the
// two bytes under the pattern's last two and, unless the window matches,
// shift the pattern to the next place where that pair lines up with an
// equal pair of the pattern (or just past it, when the pattern has none).
// Pairs are far more varied than bytes, so a long pattern moves on by
// dozens of bytes per look even when all its bytes are common: a 60-byte
// line of source code in a file of such lines, where the rare-byte scan
// stopped every line (issue 16). A pattern that fails more than once per
// 64 bytes (a run of one byte, which shifts by one) falls back to
// bytes.Index, as the rare-byte scan does.
func (f *finder) horspool(s []byte) int {
	n := len(f.pat)
	end := pair(f.pat[n-2], f.pat[n-1])
	for i := 0; i+n <= len(s); {
		p := pair(s[i+n-2], s[i+n-1])
		if p == end {
			if bytes.Equal(s[i:i+n-2], f.pat[:n-2]) {
				return i
			}
			if f.fails++; f.fails > 64+len(s)>>6 {
				if k := bytes.Index(s[i+1:], f.pat); k >= 0 {
					return i + 1 + k
				}
				return -1
			}
		}
		i += int(f.skip[p])
	}
	return -1
}

// pair packs two bytes into an index of finder.skip.
func pair(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// byteRank orders bytes from rare (low) to common (high) in typical source
// code and prose: control bytes and rare punctuation first, then digits
// and capitals, then lower-case letters by their usual frequency, with
// space, tab and newline last.
func byteRank(c byte) int {
	const common = "etaoinsrlcdhupmfgybwvkxjqz" // least common last
	switch {
	case c == ' ', c == '\t', c == '\n':
		return 250
	case c >= 'a' && c <= 'z':
		for i := range len(common) {
			if common[i] == c {
				return 240 - i
			}
		}
	case c >= 'A' && c <= 'Z':
		return 150
	case c >= '0' && c <= '9':
		return 140
	case c >= 0x80:
		return 120 // UTF-8 bytes: frequent in some files, absent in most
	case c == '(', c == ')', c == '.', c == ',', c == '_', c == '=', c == '"', c == ';', c == '-', c == '/', c == ':':
		return 200
	case c < 0x20:
		return 10
	}
	return 100 // other punctuation: {}[]<>!?#$%&'*+@\^`|~
}
