package pty

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// readAllFunc drains p through ReadFunc until it fails.
func readAllFunc(p *Process) ([]byte, error) { return readAllWith(p.ReadFunc) }

// readAllWith drains a terminal through read (ReadFunc, or its blocking
// path) until it fails.
func readAllWith(read func(func([]byte)) error) ([]byte, error) {
	var out bytes.Buffer
	for {
		if err := read(func(b []byte) { out.Write(b) }); err != nil {
			return out.Bytes(), err
		}
	}
}

// Issue 16: ReadFunc (a poller wait, then a read into a lent buffer) gives
// every byte, in order, over many reads, then io.EOF; directly and under a
// supervisor, and through the blocking path darwin takes (small buffer,
// large while reads fill it).
func TestReadFuncOutputThenEOF(t *testing.T) {
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
		read := p.ReadFunc
		if i == 2 {
			read = p.readBlocking
		}
		out, err := readAllWith(read)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("%s: ReadFunc ended with %v, want io.EOF", name, err)
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

// A ReadFunc waiting on a terminal with no output returns once the
// process is closed.
func TestReadFuncEndsAtClose(t *testing.T) {
	p := startBashNoReader(t, Options{}, "read -r _")
	done := make(chan error, 1)
	go func() { _, err := readAllFunc(p); done <- err }()
	_ = p.Close()
	eventually(t, "ReadFunc returns after Close", func() bool {
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("ReadFunc returned no error after Close")
			}
			return true
		default:
			return false
		}
	})
}

// Issue 16: a supervised program holds no OS thread while it runs (its
// reaper waits in the poller, not in a blocking wait), and is still
// reaped with its status once it ends.
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
