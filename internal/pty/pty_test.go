package pty

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOutputThenEOF(t *testing.T) {
	p, rd := startBash(t, Options{}, `printf 'one\ntwo\n'`)
	if err := rd.waitEOF(t); err != io.EOF {
		t.Fatalf("reader ended with %v, want io.EOF (EIO must read as EOF)", err)
	}
	if got := rd.String(); got != "one\ntwo\n" {
		t.Fatalf("output %q, want %q (no echo, no \\r\\n by default)", got, "one\ntwo\n")
	}
	if st := wait(t, p); st.Code != 0 || st.Signal != 0 {
		t.Fatalf("status %+v, want code 0", st)
	}
}

func TestCRLFAndEchoWhenAsked(t *testing.T) {
	p, rd := startBash(t, Options{CRLF: true, Echo: true}, `read -r line; echo "got $line"`)
	if _, err := p.Write([]byte("hi\n")); err != nil {
		t.Fatal(err)
	}
	rd.waitFor(t, "got hi\r\n")
	if got := rd.String(); !strings.HasPrefix(got, "hi\r\n") {
		t.Fatalf("output %q, want the typed line echoed first", got)
	}
}

func TestExitCode(t *testing.T) {
	p, rd := startBash(t, Options{}, `exit 3`)
	rd.waitEOF(t)
	st := wait(t, p)
	if st.Code != 3 || st.Signal != 0 || !st.Known() {
		t.Fatalf("status %+v, want code 3", st)
	}
}

func TestKilledBySignal(t *testing.T) {
	p, rd := startBash(t, Options{}, `kill -9 $$`)
	rd.waitEOF(t)
	st := wait(t, p)
	if st.Signal != syscall.SIGKILL || st.Code != -1 || st.SignalName() != "SIGKILL" {
		t.Fatalf("status %+v (%q), want SIGKILL", st, st.SignalName())
	}
}

func TestNotFound(t *testing.T) {
	requirePTY(t)
	_, err := Start(context.Background(), Options{Path: "shellport-no-such-program", Env: []string{"PATH=" + t.TempDir()}})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Start: %v, want ErrNotFound", err)
	}
}

func TestStartHonoursDirAndEnv(t *testing.T) {
	dir := t.TempDir()
	env := append(os.Environ(), "PTY_TEST_VALUE=forty two")
	p, rd := startBash(t, Options{Dir: dir, Env: env}, `echo "$PWD|$PTY_TEST_VALUE"`)
	rd.waitEOF(t)
	wait(t, p)
	real, _ := filepath.EvalSymlinks(dir)
	if got := strings.TrimSpace(rd.String()); got != real+"|forty two" && got != dir+"|forty two" {
		t.Fatalf("got %q, want %q", got, dir+"|forty two")
	}
}

// The terminal must be the controlling terminal: /dev/tty opens, and the
// shell leads its own session.
func TestControllingTerminal(t *testing.T) {
	for _, helper := range []bool{false, true} {
		name := map[bool]string{false: "direct", true: "spawn-helper"}[helper]
		t.Run(name, func(t *testing.T) {
			opts := Options{}
			if helper {
				opts.SpawnHelper = spawnHelper(t)
				opts.Dir = t.TempDir()
			}
			p, rd := startBash(t, opts, `echo via-tty >/dev/tty && ps -o sid= -o tty= -p $$ | tr -s ' ' && pwd`)
			rd.waitEOF(t)
			if st := wait(t, p); st.Code != 0 {
				t.Fatalf("status %+v; output %q", st, rd.String())
			}
			out := rd.String()
			if !strings.Contains(out, "via-tty\n") {
				t.Fatalf("no write to /dev/tty: %q", out)
			}
			ttyShort := strings.TrimPrefix(p.TTY(), "/dev/")
			if !strings.Contains(out, " "+itoa(p.Pid())+" "+ttyShort) && !strings.Contains(out, itoa(p.Pid())+" "+ttyShort) {
				t.Fatalf("want session %d on %s, got %q", p.Pid(), ttyShort, out)
			}
			if helper {
				real, _ := filepath.EvalSymlinks(opts.Dir)
				if !strings.Contains(out, real) {
					t.Fatalf("helper did not chdir to %s: %q", real, out)
				}
			}
		})
	}
}

func TestResize(t *testing.T) {
	p, rd := startBash(t, Options{Size: Winsize{Rows: 10, Cols: 20}}, `stty size; read -r _; stty size`)
	rd.waitFor(t, "10 20\n")
	if err := p.Resize(Winsize{Rows: 33, Cols: 111}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	rd.waitFor(t, "33 111\n")
}

func TestSignalForeground(t *testing.T) {
	p, rd := startBash(t, Options{}, `trap 'echo got-int; exit 5' INT; echo ready; read -r _`)
	rd.waitFor(t, "ready")
	// bash's read builtin has a window in which a signal that arrives just
	// before the read(2) runs the handler but not the trap, and the read
	// then blocks (about 1 run in 150 here). So the signal is sent again
	// until the trap has run: what is tested is that it reaches the
	// foreground group at all.
	deadline := time.Now().Add(testWait)
	for sent := 0; !strings.Contains(rd.String(), "got-int"); sent++ {
		if time.Now().After(deadline) {
			t.Fatalf("no trap output after %v of SIGINTs; got %q", testWait, rd.String())
		}
		// A repeat may find the shell already gone (its trap ran and
		// exited while the output was on its way): only the first must land.
		if err := p.SignalForeground(syscall.SIGINT); err != nil && sent == 0 {
			t.Fatal(err)
		}
		select {
		case <-rd.more:
		case <-time.After(200 * time.Millisecond):
		}
	}
	if st := wait(t, p); st.Code != 5 {
		t.Fatalf("status %+v, want 5 from the INT trap", st)
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	p, rd := startBash(t, Options{}, `echo ready; sleep 300`)
	rd.waitFor(t, "ready")
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Close returned before the program was reaped")
	}
	if _, err := p.Read(make([]byte, 10)); err == nil {
		t.Fatal("Read after Close succeeded")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Issue 16: OnDone runs once the program has been reaped, after Done is
// closed and with the status set, so a waiter it wakes finds both.
func TestOnDoneRunsAfterDone(t *testing.T) {
	ran := make(chan ExitStatus, 1)
	var p *Process
	started := make(chan struct{})
	p, rd := startBash(t, Options{OnDone: func() {
		<-started
		select {
		case <-p.Done():
			ran <- p.status
		default:
			ran <- ExitStatus{Code: -2}
		}
	}}, `exit 4`)
	close(started)
	rd.waitEOF(t)
	select {
	case st := <-ran:
		if st.Code != 4 {
			t.Fatalf("OnDone saw %+v, want Done closed and code 4", st)
		}
	case <-time.After(testWait):
		t.Fatal("OnDone never ran")
	}
}
