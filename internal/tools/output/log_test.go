package output

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Issue 11: a background task's log is the output core's spill file. Every
// append is in the file before Append returns (bash_output reads it back
// while the task runs), and the cap is noted in the words every spill file
// uses.
func TestLogIsReadableAsWrittenAndCapped(t *testing.T) {
	l, err := CreateLog(t.TempDir(), "bash-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l.Name(), "bash-1-") {
		t.Fatalf("log named %q", l.Name())
	}
	l.Append([]byte("first "))
	l.Append([]byte("line, no newline"))
	if got, err := os.ReadFile(l.Name()); err != nil || string(got) != "first line, no newline" {
		t.Fatalf("read back before Finish: %q %v", got, err)
	}
	if !l.Sound() {
		t.Fatal("a log under its cap reported as unsound")
	}

	chunk := bytes.Repeat([]byte("y"), 1<<20)
	for written := int64(0); written <= SpillLimit; written += int64(len(chunk)) {
		l.Append(chunk)
	}
	if l.Sound() {
		t.Fatal("a log past its cap reported as sound: its reader would miss bytes")
	}
	if err := l.Finish(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(l.Name())
	if err != nil {
		t.Fatal(err)
	}
	note := "\n[spill file limit of 256 MiB reached; later output was not saved]\n"
	if st.Size() != SpillLimit+int64(len(note)) {
		t.Fatalf("log of %d bytes, want the cap %d and the note", st.Size(), SpillLimit)
	}
	f, err := os.Open(l.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tail := make([]byte, len(note))
	if _, err := f.ReadAt(tail, st.Size()-int64(len(note))); err != nil || string(tail) != note {
		t.Fatalf("log ends %q (%v)", tail, err)
	}
}
