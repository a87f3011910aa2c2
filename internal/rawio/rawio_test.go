//go:build unix

package rawio_test

import (
	"errors"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/rawio"
)

// Read and Write move bytes through a non-blocking pipe, an empty buffer
// included, and report EAGAIN where a blocking call would wait.
func TestNonBlockingPipe(t *testing.T) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(p[0]); _ = unix.Close(p[1]) })
	for _, fd := range p {
		if err := unix.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
	}
	r, w := uintptr(p[0]), uintptr(p[1])
	buf := make([]byte, 8)
	if _, err := rawio.Read(r, buf); !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("read of an empty pipe: %v, want EAGAIN", err)
	}
	if n, err := rawio.Write(w, nil); n != 0 || err != nil {
		t.Fatalf("empty write: %d, %v", n, err)
	}
	if n, err := rawio.Write(w, []byte("hello")); n != 5 || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	if n, err := rawio.Read(r, buf); n != 5 || err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read: %q, %v", buf[:n], err)
	}
	_ = unix.Close(p[1])
	p[1] = -1
	if n, err := rawio.Read(r, buf); n != 0 || err != nil {
		t.Fatalf("read at the end: %d, %v, want 0 and no error", n, err)
	}
}
