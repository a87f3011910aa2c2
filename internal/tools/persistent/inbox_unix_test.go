//go:build unix

package persistent

import (
	"strings"
	"syscall"
	"testing"
)

// Issue 10: the inbox does not keep every command it was sent. After 40
// commands of 512 KiB (20 MiB in all) the file occupies no more than the
// release threshold plus one command.
func TestInboxStaysBounded(t *testing.T) {
	f := newFixture(t, Config{})
	const size = 512 << 10
	big := ": " + strings.Repeat("y", size)
	for range 40 {
		f.expect(big, "[no output]")
	}
	f.expect("echo still", "still\n")
	sh := f.shellOf("s")
	fi, err := sh.inbox.Stat()
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	allocated := int64(st.Blocks) * 512
	t.Logf("inbox after %d MiB of commands: %d bytes long, %d bytes allocated", 40*size>>20, fi.Size(), allocated)
	if allocated > inboxKeep+2*size {
		t.Fatalf("the inbox occupies %d bytes after 40 commands of %d bytes", allocated, size)
	}
}
