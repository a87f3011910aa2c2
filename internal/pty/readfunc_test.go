package pty

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// readAllEach drains p through ReadEach until it fails.
func readAllEach(p *Process) ([]byte, error) { return readAllWith(p.ReadEach) }

// readAllWith drains a terminal through read (ReadEach, or one read of
// its blocking path) until it fails.
func readAllWith(read func(func([]byte)) error) ([]byte, error) {
	var out bytes.Buffer
	for {
		if err := read(func(b []byte) { out.Write(b) }); err != nil {
			return out.Bytes(), err
		}
	}
}

// Issue 16: ReadEach (poller waits, and reads into a lent buffer until one
// comes back short) gives every byte, in order, over many reads, then
// io.EOF; directly and under a supervisor, and through the blocking path
// darwin takes (small buffer, large while reads fill it).
func TestReadEachOutputThenEOF(t *testing.T) {
	requirePTY(t)
	for i, supervised := range []bool{false, true, false} {
		name := []string{"direct", "supervised", "blocking path"}[i]
		opts := Options{Path: "bash", Args: []string{"--noprofile", "--norc", "-c", "seq 1 40000"}}
		if supervised {
			opts.SpawnHelper = spawnHelper(t)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		p, err := Start(ctx, opts)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		read := p.ReadEach
		if i == 2 {
			read = p.readBlocking
		}
		out, err := readAllWith(read)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("%s: ReadEach ended with %v, want io.EOF", name, err)
		}
		var want strings.Builder
		for i := 1; i <= 40000; i++ {
			want.WriteString(itoa(i) + "\n")
		}
		if string(out) != want.String() {
			t.Fatalf("%s: %d bytes read, want %d; they differ", name, len(out), want.Len())
		}
		if st := wait(t, p); st.Code != 0 {
			t.Fatalf("%s: status %+v", name, st)
		}
		_ = p.Close()
	}
}

// Issue 16: ReadEach skips the read that would find nothing after a short
// one, but not the end of file: output a process that outlives the
// program writes after the program was reaped, just before it closes the
// terminal, still arrives, and so does the end of file (the readiness of
// the close may be the one the last output's read consumed). Without a
// supervisor, which would wait for that process too; the process ignores
// the SIGHUP the kernel sends when the program, its session's leader,
// exits.
func TestReadEachEndOfFileAfterTheProgram(t *testing.T) {
	requirePTY(t)
	for range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		p, err := Start(ctx, Options{Path: "bash", Args: []string{"--noprofile", "--norc", "-c", "trap '' HUP; (sleep 0.1; echo late) & echo early"}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var out []byte
		go func() {
			defer close(done)
			out, err = readAllEach(p)
		}()
		select {
		case <-done:
		case <-time.After(testWait):
			_ = p.Close()
			<-done
			t.Fatalf("ReadEach still waiting after the last process closed the terminal; read %q", out)
		}
		if !errors.Is(err, io.EOF) || string(out) != "early\nlate\n" {
			t.Fatalf("ReadEach read %q and ended with %v, want early, late and io.EOF", out, err)
		}
		_ = p.Close()
	}
}

// A ReadEach waiting on a terminal with no output returns once the
// process is closed.
func TestReadEachEndsAtClose(t *testing.T) {
	p := startBashNoReader(t, Options{}, "read -r _")
	done := make(chan error, 1)
	go func() { _, err := readAllEach(p); done <- err }()
	_ = p.Close()
	eventually(t, "ReadEach returns after Close", func() bool {
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("ReadEach returned no error after Close")
			}
			return true
		default:
			return false
		}
	})
}

// Issue 16: a supervised program holds no OS thread while it runs (the
// exit watcher learns of its supervisor's end; nothing blocks in a wait),
// and is still reaped with its status once it ends.
func TestSupervisedHoldsNoThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("supervisors run on Linux only")
	}
	helper := spawnHelper(t)
	const n = 24
	procs := make([]*Process, 0, n)
	before := threads(t)
	for range n {
		p, _ := startBash(t, Options{SpawnHelper: helper}, "read -r _; exit 7")
		procs = append(procs, p)
	}
	if grown := threads(t) - before; grown >= n/2 {
		t.Fatalf("%d OS threads more with %d supervised programs running", grown, n)
	}
	for _, p := range procs {
		if _, err := p.Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range procs {
		if st := wait(t, p); st.Code != 7 {
			t.Fatalf("status %+v, want code 7", st)
		}
	}
}
