package editor

import "bytes"

// sniffBytes is how much of a file view checks for NUL bytes before
// printing anything.
const sniffBytes = 8 << 10

// lineOf returns the 1-based line holding byte offset off.
func lineOf(data []byte, off int) int {
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], nl) + 1
}

var nl = []byte{'\n'}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
