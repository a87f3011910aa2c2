//go:build linux

package persistent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fullTmpdir mounts a small tmpfs as $TMPDIR for the test and returns a
// function that fills it to the last byte and the last inode.
func fullTmpdir(t *testing.T) (fill func()) {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=512k,nr_inodes=64"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v); this needs root", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	t.Setenv("TMPDIR", dir)
	return func() {
		t.Helper()
		w, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		chunk := make([]byte, 4096)
		for {
			if _, err := w.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
		for i := 0; ; i++ {
			if err := os.WriteFile(filepath.Join(dir, "inode"+strconv.Itoa(i)), nil, 0o600); err != nil {
				break
			}
		}
	}
}

// Issue 10: with $TMPDIR full, a command longer than the space left runs in
// the same shell (through the control FIFO instead of the inbox), and the
// result says nothing was reset because nothing was.
func TestFullTmpdirLongCommandRuns(t *testing.T) {
	fill := fullTmpdir(t)
	f := newFixture(t, Config{})
	f.expect("cd /; kept=yes", "[no output]")
	sh := f.shellOf("s")
	fill()
	long := strings.Repeat("x", 256<<10)
	res := f.expect("v="+long+"; echo ${#v} $kept $PWD", "262144 yes /\n")
	if structured(t, res, "shellReset") != false {
		t.Fatalf("shellReset %v", res.Structured["shellReset"])
	}
	f.expect("echo short", "short\n")
	if f.shellOf("s") != sh {
		t.Fatal("the shell was replaced")
	}
}

// Issue 10: when even a shell's private directory cannot be made, the call
// fails with a result that says so, not an internal error.
func TestFullTmpdirNoShellSaysSo(t *testing.T) {
	fill := fullTmpdir(t)
	fill()
	f := newFixture(t, Config{})
	res, err := f.callIn(t.Context(), "s", "echo hi")
	if err != nil {
		t.Fatalf("Call: %v (want a result saying the shell could not start)", err)
	}
	if !res.IsError || !strings.Contains(res.Text, "could not start a shell for this command, so it did not run") {
		t.Fatalf("got %+v", res)
	}
}

// Issue 16: the control FIFO is outside the Go poller, so a command that
// goes through it is written through a pollable copy; cancelling the call
// while the shell is still reading it must end that write (no goroutine is
// left blocked on a FIFO no one reads) and leave no descriptor behind.
func TestFullTmpdirLongCommandCancelledEndsWrite(t *testing.T) {
	fill := fullTmpdir(t)
	f := newFixture(t, Config{})
	f.expect("true", "[no output]")
	fill()
	fds := openFDs(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// The shell reads a command from the FIFO a byte at a time, so
		// 4 MiB keeps the writer waiting for room long after this.
		if waitUntil(t, func() bool { return sendWriters() > 0 }) {
			cancel()
		}
	}()
	if _, err := f.callIn(ctx, "s", "v="+strings.Repeat("x", 4<<20)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Call: %v (want it cancelled)", err)
	}
	if !waitUntil(t, func() bool { return sendWriters() == 0 }) {
		t.Fatal("the write of the cancelled command still waits on the control FIFO")
	}
	f.tool.CloseSession("s")
	if got := openFDs(t); got > fds {
		t.Fatalf("%d descriptors open after the session closed, %d before the call", got, fds)
	}
}

// sendWriters counts goroutines writing a long command to a control FIFO.
func sendWriters() int {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
	return strings.Count(buf.String(), "persistent.(*shell).send.func1")
}

// waitUntil polls cond until it holds or testWait passes (a hang guard).
func waitUntil(t *testing.T, cond func() bool) bool {
	t.Helper()
	for deadline := time.Now().Add(testWait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}
