package persistent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

// Issue 3: different sessions run in parallel. Session a blocks reading a
// FIFO that only session b writes; serialised sessions would deadlock.
func TestSessionsRunInParallel(t *testing.T) {
	f := newFixture(t, Config{})
	fifo := f.cwd + "/pipe"
	f.expect("mkfifo "+fifo, "[no output]")
	var wg sync.WaitGroup
	var a *tools.Result
	wg.Add(1)
	go func() { defer wg.Done(); a = f.runIn("a", "cat "+fifo) }()
	f.runIn("b", "echo from-b >"+fifo)
	wg.Wait()
	if a.Text != "from-b\n" {
		t.Fatalf("session a got %q", a.Text)
	}
	if f.shellOf("a").proc.Pid() == f.shellOf("b").proc.Pid() {
		t.Fatal("two sessions share a shell")
	}
}

// Issue 3: calls to one session are serialised in arrival order.
func TestCallsToOneSessionAreSerialisedFIFO(t *testing.T) {
	f := newFixture(t, Config{})
	gate := f.cwd + "/gate"
	f.expect("mkfifo "+gate+"; n=0", "[no output]")
	s := f.sessionOf("s")
	results := make([]*tools.Result, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		cmd := fmt.Sprintf("n=$((n+1)); echo \"call %d saw $n\"", i)
		if i == 0 {
			cmd = ": >" + f.cwd + "/running; read -r _ <" + gate + "; " + cmd
		}
		go func() { defer wg.Done(); results[i] = f.run(cmd) }()
		if i == 0 {
			eventuallyFile(t, f.cwd+"/running")
		} else {
			eventually(t, "call queued", func() bool { return s.queue.queued() == i })
		}
	}
	f.writeFIFO(gate, "go\n")
	wg.Wait()
	for i, res := range results {
		if want := fmt.Sprintf("call %d saw %d\n", i, i+1); res.Text != want {
			t.Errorf("call %d: %q, want %q", i, res.Text, want)
		}
	}
}

// Issue 3: closing a session kills every process of its shell's session,
// background jobs included.
func TestCloseSessionLeavesNoProcess(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("sleep 300 & nohup sleep 300 >/dev/null 2>&1 & (sleep 300 &) ; echo ok", "ok\n")
	sh := f.shellOf("s")
	sid := sh.proc.Pid()
	eventually(t, "jobs running", func() bool { return len(sessionProcs(t, sid)) >= 4 })
	f.tool.CloseSession("s")
	if left := sessionProcs(t, sid); len(left) != 0 {
		t.Fatalf("processes of session %d survived CloseSession: %v", sid, left)
	}
	select {
	case <-sh.proc.Done():
	default:
		t.Fatal("shell not reaped")
	}
	f.tool.CloseSession("s") // idempotent
	f.expect("echo new shell", "new shell\n")
}

// Close kills every shell; later calls fail; Close is idempotent.
func TestCloseToolLeavesNoProcess(t *testing.T) {
	f := newFixture(t, Config{})
	var sids []int
	for _, id := range []string{"a", "b"} {
		f.runIn(id, "sleep 300 &")
		sids = append(sids, f.shellOf(id).proc.Pid())
	}
	if err := f.tool.Close(); err != nil {
		t.Fatal(err)
	}
	for _, sid := range sids {
		if left := sessionProcs(t, sid); len(left) != 0 {
			t.Fatalf("session %d survived Close: %v", sid, left)
		}
	}
	if _, err := f.callIn(context.Background(), "a", "true"); err != ErrClosed {
		t.Fatalf("call after Close: %v", err)
	}
	if err := f.tool.Close(); err != nil {
		t.Fatal(err)
	}
}

// A session closed while its call runs ends that call promptly.
func TestCloseSessionDuringCall(t *testing.T) {
	f := newFixture(t, Config{})
	done := make(chan error, 1)
	go func() {
		_, err := f.callIn(context.Background(), "s", ": >"+f.cwd+"/running; sleep 300")
		done <- err
	}()
	eventuallyFile(t, f.cwd+"/running")
	f.tool.CloseSession("s")
	if err := <-done; err != ErrSessionClosed {
		t.Fatalf("err %v, want ErrSessionClosed", err)
	}
}

// The spawn helper path (forced with Config.SpawnHelper) gives the same
// shell: a controlling terminal, persistence, markers, death handling.
func TestSpawnHelperPath(t *testing.T) {
	f := newFixture(t, Config{SpawnHelper: spawnHelper(t)})
	f.expect("cd /; x=via-helper", "[no output]")
	res := f.run("echo $x; pwd; tty >/dev/null && echo has-tty; ps -o sid= -p $$ | tr -d ' '")
	if !strings.HasPrefix(res.Text, "via-helper\n/\nhas-tty\n") || !strings.HasSuffix(res.Text, fmt.Sprintf("%d\n", f.shellOf("s").proc.Pid())) {
		t.Fatalf("got %q", res.Text)
	}
	f.expect("exit 4", "[exit code: 4]\n[the shell exited, so it was reset: its working directory, variables, functions and background jobs are gone, and the next command starts in a fresh shell in "+f.cwd+"]")
	f.expect("pwd", f.cwd+"\n")
}

// Issue 11: a call without a session is refused by the tool too (the
// runtime refuses it first), instead of running on a shell shared by every
// session-less caller.
func TestCallWithoutSessionIsRefused(t *testing.T) {
	f := newFixture(t, Config{})
	res, err := f.tool.Call(t.Context(), &tools.Call{Session: tools.Session{Cwd: f.cwd}, Arguments: args("echo hi")})
	if err != nil || !res.IsError || !strings.Contains(res.Text, "runs only in a session") {
		t.Fatalf("got %+v %v", res, err)
	}
	if len(f.tool.sessions) != 0 {
		t.Fatal("a shell was started for a call without a session")
	}
}
