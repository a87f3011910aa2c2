package pty

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
)

// testWait bounds every wait in these tests. It is a deadlock guard, never a
// speed assertion: a healthy run needs a tiny fraction of it.
const testWait = 20 * time.Second

func requirePTY(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("no terminal support on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
}

// startBash starts bash -c script on a terminal and closes it at cleanup.
func startBash(t *testing.T, opts Options, script string) (*Process, *reader) {
	t.Helper()
	p := startBashNoReader(t, opts, script)
	return p, newReader(p)
}

// startBashNoReader is startBash for a test that reads the terminal itself.
func startBashNoReader(t *testing.T, opts Options, script string) *Process {
	t.Helper()
	requirePTY(t)
	opts.Path = "bash"
	opts.Args = []string{"--noprofile", "--norc", "-c", script}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	p, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// threads is this process's OS thread count, from /proc/self/status.
func threads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err == nil {
				return n
			}
		}
	}
	t.Skip("no thread count in /proc/self/status")
	return 0
}

// reader drains a process's terminal in the background, as real users of
// the package must, and lets a test wait for text.
type reader struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{} // signalled on every read
	done chan struct{} // closed at EOF or error
	err  error
}

func newReader(r io.Reader) *reader {
	rd := &reader{more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(rd.done)
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			rd.mu.Lock()
			rd.buf.Write(b[:n])
			rd.mu.Unlock()
			select {
			case rd.more <- struct{}{}:
			default:
			}
			if err != nil {
				rd.mu.Lock()
				rd.err = err
				rd.mu.Unlock()
				return
			}
		}
	}()
	return rd
}

func (rd *reader) String() string {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.buf.String()
}

// waitFor waits until the output contains s.
func (rd *reader) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(testWait)
	for !strings.Contains(rd.String(), s) {
		select {
		case <-rd.more:
		case <-rd.done:
			if !strings.Contains(rd.String(), s) {
				t.Fatalf("output ended without %q; got %q (err %v)", s, rd.String(), rd.err)
			}
		case <-deadline:
			t.Fatalf("no %q in output after %v; got %q", s, testWait, rd.String())
		}
	}
}

// waitEOF waits for the reader to finish and returns its error.
func (rd *reader) waitEOF(t *testing.T) error {
	t.Helper()
	select {
	case <-rd.done:
	case <-time.After(testWait):
		t.Fatalf("reader still blocked after %v; output %q", testWait, rd.String())
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.err
}

func wait(t *testing.T, p *Process) ExitStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	st, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return st
}

// eventually polls cond until it holds; for states the kernel reaches
// asynchronously (a process dying, a process going to sleep).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %v", what, testWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// spawnHelper builds cmd/shellport-spawn-helper once per test binary.
func spawnHelper(t *testing.T) string {
	t.Helper()
	requirePTY(t)
	return testkit.SpawnHelper(t)
}

func TestMain(m *testing.M) {
	if os.Getenv(orphanHelperEnv) != "" {
		orphanHelper()
		return
	}
	os.Exit(m.Run())
}

// orphanHelperEnv makes the test binary act as a short-lived parent: it
// starts a long sleep on a terminal (or, with orphanScriptEnv, bash running
// that script, waiting until it prints "started"), prints the program's pid
// and exits without closing it, so a test can check what dies with the
// runtime. orphanHelperEnv+"_SPAWN_HELPER" names the spawn helper to use.
const (
	orphanHelperEnv = "SHELLPORT_PTY_ORPHAN_HELPER"
	orphanScriptEnv = "SHELLPORT_PTY_ORPHAN_SCRIPT"
)

func orphanHelper() {
	opts := Options{Path: "sleep", Args: []string{"300"}, SpawnHelper: os.Getenv(orphanHelperEnv + "_SPAWN_HELPER")}
	script := os.Getenv(orphanScriptEnv)
	if script != "" {
		opts.Path, opts.Args = "bash", []string{"--noprofile", "--norc", "-c", script}
	}
	p, err := Start(context.Background(), opts)
	if err != nil {
		_, _ = os.Stdout.WriteString("error: " + err.Error() + "\n")
		return
	}
	if script != "" {
		var seen []byte
		buf := make([]byte, 4096)
		for !strings.Contains(string(seen), "started") {
			n, err := p.Read(buf)
			seen = append(seen, buf[:n]...)
			if err != nil {
				_, _ = os.Stdout.WriteString("error: output ended: " + string(seen) + "\n")
				return
			}
		}
	}
	_, _ = os.Stdout.WriteString("pid " + strconv.Itoa(p.Pid()) + "\n")
}
