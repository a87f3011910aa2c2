package spawnhelper_test

import (
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// testWait bounds every wait here; a hang guard, never a speed assertion.
const testWait = 30 * time.Second

// started is a program running under a supervisor with its output piped.
type started struct {
	*spawnhelper.Process
	out *os.File
}

// start runs argv under a supervisor built from this tree, with stdout and
// stderr on one pipe, and kills everything at cleanup.
func start(t *testing.T, spec spawnhelper.Spec, argv ...string) *started {
	t.Helper()
	spec.Helper = testkit.SpawnHelper(t)
	if spec.Path == "" {
		spec.Path = argv[0]
	}
	spec.Args = argv
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if spec.Stdout == nil {
		spec.Stdout, spec.Stderr = w, w
	}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	p, err := spawnhelper.Start(ctx, spec)
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		t.Fatalf("Start %q: %v", argv, err)
	}
	t.Cleanup(func() {
		_ = p.KillAll()
		_, _ = p.Wait()
		_ = r.Close()
	})
	return &started{Process: p, out: r}
}

// startFails starts spec with start (Start, or a pool's), which must fail,
// and returns its error; a start that succeeds is killed and fails the
// test, named by what.
func startFails(t *testing.T, what string, start func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error), spec spawnhelper.Spec) error {
	t.Helper()
	p, err := start(context.Background(), spec)
	if err == nil {
		_ = p.KillAll()
		_, _ = p.Wait()
		t.Fatalf("%s: start succeeded", what)
	}
	return err
}

// bash runs script with bash -c under a supervisor.
func bash(t *testing.T, script string) *started {
	t.Helper()
	return start(t, spawnhelper.Spec{}, "bash", "--noprofile", "--norc", "-c", script)
}

// output reads the program's output to end of file.
func (s *started) output(t *testing.T) string {
	t.Helper()
	_ = s.out.SetReadDeadline(time.Now().Add(testWait))
	b, err := io.ReadAll(s.out)
	if err != nil {
		t.Fatalf("read output: %v (so far %q)", err, b)
	}
	return string(b)
}

// waitFor reads the output until it contains text.
func (s *started) waitFor(t *testing.T, text string) string {
	t.Helper()
	_ = s.out.SetReadDeadline(time.Now().Add(testWait))
	var got []byte
	buf := make([]byte, 4096)
	for !strings.Contains(string(got), text) {
		n, err := s.out.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("output ended (%v) without %q: %q", err, text, got)
		}
	}
	return string(got)
}

// wait waits for the supervisor and returns how the program ended.
func (s *started) wait(t *testing.T) syscall.WaitStatus {
	t.Helper()
	done := make(chan struct{})
	var st *os.ProcessState
	var err error
	go func() { defer close(done); st, err = s.Wait() }()
	select {
	case <-done:
	case <-time.After(testWait):
		t.Fatalf("supervisor %d not reaped after %v", s.SupervisorPid(), testWait)
	}
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return st.Sys().(syscall.WaitStatus)
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %v", what, testWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
