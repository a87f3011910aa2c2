package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// spillFile is a file of full output, capped at SpillLimit bytes of
// output (notes of ours go past the cap).
type spillFile struct {
	f    *os.File
	w    *bufio.Writer
	n    int64 // output bytes written since the last reset
	cut  bool  // the cap was reached
	err  error // first write error
	last byte  // last byte written, to know whether a newline is due
}

func createSpill(dir, prefix string) (*spillFile, error) {
	return createSpillSized(dir, prefix, 64<<10)
}

// createSpillSized is createSpill with a write buffer of size bytes.
func createSpillSized(dir, prefix string, size int) (*spillFile, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, prefix+"-*.txt")
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	return &spillFile{f: f, w: bufio.NewWriterSize(f, size)}, nil
}

func (s *spillFile) write(p []byte) {
	if s.err != nil || s.cut || len(p) == 0 {
		return
	}
	if room := SpillLimit - s.n; int64(len(p)) > room {
		p, s.cut = p[:room], true
	}
	n, err := s.w.Write(p)
	s.n += int64(n)
	if n > 0 {
		s.last = p[n-1]
	}
	if err != nil {
		s.err = err
	}
}

// note appends a line of ours on a line of its own.
func (s *spillFile) note(line string) {
	if s.err != nil {
		return
	}
	if s.last != 0 && s.last != '\n' {
		line = "\n" + line
	}
	_, s.err = io.WriteString(s.w, line+"\n")
	s.last = '\n'
}

// endSection notes a cap that was reached and gives the next section its
// own allowance.
func (s *spillFile) endSection() {
	if s.cut {
		s.note(fmt.Sprintf("[spill file limit of %d MiB reached; later output was not saved]", SpillLimit>>20))
	}
	s.n, s.cut = 0, false
}

// copyFrom appends another spill file's bytes (its own notes included).
func (s *spillFile) copyFrom(src *spillFile) error {
	if err := src.flush(); err != nil {
		return err
	}
	if _, err := src.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read spill file: %w", err)
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := src.f.Read(buf)
		s.write(buf[:n])
		if errors.Is(err, io.EOF) {
			s.cut = s.cut || src.cut
			return nil
		}
		if err != nil {
			return fmt.Errorf("read spill file: %w", err)
		}
	}
}

func (s *spillFile) flush() error {
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// finish flushes and closes the file.
func (s *spillFile) finish() error {
	err := s.flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write spill file %q: %w", s.f.Name(), err)
	}
	return nil
}

// remove closes and deletes the file.
func (s *spillFile) remove() {
	_ = s.f.Close()           // best effort: may be closed already
	_ = os.Remove(s.f.Name()) // best effort: a temporary file
}
