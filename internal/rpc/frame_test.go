package rpc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Issue 18: a message of exactly the limit followed by CRLF was rejected.
func TestFrameReaderExactlyAtLimitWithCRLF(t *testing.T) {
	line := strings.Repeat("y", 1000)
	for _, ending := range []string{"\n", "\r\n", ""} {
		next := `{"next":1}` + "\n"
		if ending == "" {
			next = "" // the last line, at end of input
		}
		r := NewFrameReader(strings.NewReader(line+ending+next), 1000)
		msg, err := r.Read()
		if err != nil || len(msg) != 1000 {
			t.Fatalf("ending %q: a message of exactly the limit is accepted: len %d, %v", ending, len(msg), err)
		}
		if ending == "" {
			continue
		}
		if msg, err := r.Read(); err != nil || string(msg) != `{"next":1}` {
			t.Fatalf("ending %q: next message %q %v", ending, msg, err)
		}
	}
}

// Issue 18: an over-limit last line without a newline got past the reader
// (the core caught it later); the reader itself refuses it now.
func TestFrameReaderOverLimitLastLineWithoutNewline(t *testing.T) {
	for _, size := range []int{1001, 1002, 1003, 5000, 200 << 10} {
		for _, cr := range []string{"", "\r"} {
			r := NewFrameReader(strings.NewReader(strings.Repeat("z", size)+cr), 1000)
			_, err := r.Read()
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Size != size || tl.Limit != 1000 {
				t.Fatalf("size %d%q: want TooLargeError of %d bytes, got %v", size, cr, size, err)
			}
			if _, err := r.Read(); !errors.Is(err, io.EOF) {
				t.Fatalf("size %d: want EOF after, got %v", size, err)
			}
		}
	}
}

// The reported size never counts the line ending, however the line is
// chunked, and the stream goes on after it.
func TestFrameReaderTooLargeSizes(t *testing.T) {
	for _, size := range []int{1001, 1002, 70 << 10, 300 << 10} {
		for _, ending := range []string{"\n", "\r\n"} {
			in := strings.Repeat("q", size) + ending + `{"after":true}` + "\n"
			for name, src := range map[string]io.Reader{
				"whole":   strings.NewReader(in),
				"onebyte": iotest.OneByteReader(strings.NewReader(in)),
				"half":    iotest.HalfReader(strings.NewReader(in)),
			} {
				r := NewFrameReader(src, 1000)
				_, err := r.Read()
				var tl *TooLargeError
				if !errors.As(err, &tl) || tl.Size != size {
					t.Fatalf("%s size %d ending %q: got %v", name, size, ending, err)
				}
				if len(tl.Head) != min(size, headSize) {
					t.Fatalf("%s: head of %d bytes", name, len(tl.Head))
				}
				if msg, err := r.Read(); err != nil || string(msg) != `{"after":true}` {
					t.Fatalf("%s size %d: after: %q %v", name, size, msg, err)
				}
			}
		}
	}
}

func TestFrameReaderSetLimit(t *testing.T) {
	r := NewFrameReader(strings.NewReader(strings.Repeat("a", 50)+"\n"+strings.Repeat("b", 50)+"\n"), 100)
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	r.SetLimit(10)
	var tl *TooLargeError
	if _, err := r.Read(); !errors.As(err, &tl) || tl.Limit != 10 {
		t.Fatalf("the new limit applies to the next frame: %v", err)
	}
}

// FuzzFrameReader compares the reader with a plain model of the framing:
// split at "\n", drop one "\r" before it (and trailing "\r"s), skip blank
// lines, refuse what is longer than the limit.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}"), uint16(8))
	f.Add([]byte("0123456789\r\n0123456789A\n"), uint16(10))
	f.Add([]byte("0123456789A"), uint16(10))
	f.Add([]byte("\r\r\r\n\r"), uint16(1))
	f.Fuzz(func(t *testing.T, in []byte, limit uint16) {
		lim := int(limit%64) + 1
		r := NewFrameReader(iotest.HalfReader(bytes.NewReader(in)), lim)
		lines := bytes.Split(in, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		for _, line := range lines {
			msg := bytes.TrimSuffix(line, []byte("\r"))
			trimmed := bytes.TrimRight(msg, "\r")
			if len(msg) <= lim && len(bytes.TrimSpace(trimmed)) == 0 {
				continue
			}
			got, err := r.Read()
			if len(msg) > lim {
				var tl *TooLargeError
				if !errors.As(err, &tl) || tl.Size != len(msg) {
					t.Fatalf("line %q over limit %d: got %q %v", line, lim, got, err)
				}
				continue
			}
			if err != nil || !bytes.Equal(got, trimmed) {
				t.Fatalf("line %q: got %q %v, want %q", line, got, err, trimmed)
			}
		}
		if got, err := r.Read(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last line: %q %v", got, err)
		}
	})
}
