// Package lifecycle holds the session-lifetime regression scenarios of
// issue 10 as functions of a carrier, so the same cases run against the core
// itself, the in-process connection the C ABI uses, and `shellport serve`.
//
// Each scenario opens its own runtime through open, sends its own
// initialize, and proves isolation by what commands can see and by counting
// processes (rpcclient.CountProcs), never by timing.
package lifecycle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit/rpcclient"
	"github.com/shellport/shellport/internal/testkit/transcript"
)

// Open starts a fresh runtime and returns a carrier to it; the runtime is
// closed when the test ends.
type Open func(t *testing.T) transcript.Carrier

// Scenario is one named case.
type Scenario struct {
	Name string
	Run  func(t *testing.T, open Open)
}

// All lists every scenario; run them with RunAll.
var All = []Scenario{
	{"QueuedPersistentCallsNeverRunAfterClose", QueuedPersistentCallsNeverRunAfterClose},
	{"NewSessionWithClosedIDInheritsNothing/persistent", NewSessionWithClosedIDInheritsNothingPersistent},
	{"NewSessionWithClosedIDInheritsNothing/oneshot", NewSessionWithClosedIDInheritsNothingOneshot},
	{"PipelinedCloseNewCallRunsInNewSession/persistent", func(t *testing.T, open Open) { PipelinedCloseNewCall(t, open, "persistent") }},
	{"PipelinedCloseNewCallRunsInNewSession/oneshot", func(t *testing.T, open Open) { PipelinedCloseNewCall(t, open, "oneshot") }},
	{"OneShotCommandsSentBeforeCloseDie", OneShotCommandsSentBeforeCloseDie},
	{"ClosedSessionErrorsSayClosed", ClosedSessionErrorsSayClosed},
	{"PersistentBashRefusesCallWithoutSession", PersistentBashRefusesCallWithoutSession},
	{"BaseEnvIsTheSessionsEnvironment/oneshot", func(t *testing.T, open Open) { BaseEnvIsTheSessionsEnvironment(t, open, "oneshot") }},
	{"BaseEnvIsTheSessionsEnvironment/persistent", func(t *testing.T, open Open) { BaseEnvIsTheSessionsEnvironment(t, open, "persistent") }},
}

// RunAll runs every scenario as a subtest.
func RunAll(t *testing.T, open Open) {
	for _, sc := range All {
		t.Run(sc.Name, func(t *testing.T) { sc.Run(t, open) })
	}
}

func start(t *testing.T, open Open, config string) *rpcclient.Client {
	t.Helper()
	c := rpcclient.New(t, open(t))
	var cfg any
	if err := jsonUnmarshal(config, &cfg); err != nil {
		t.Fatalf("config: %v", err)
	}
	if r := c.Call("initialize", map[string]any{"config": cfg}); r.Error != nil {
		t.Fatalf("initialize: %s", r.Message())
	}
	return c
}

func newSession(t *testing.T, c *rpcclient.Client, id, cwd string, env map[string]string) {
	t.Helper()
	p := map[string]any{"cwd": cwd, "id": id}
	if env != nil {
		p["env"] = env
	}
	if r := c.Call("session/new", p); r.Error != nil {
		t.Fatalf("session/new %s: %s", id, r.Message())
	}
}

func bash(session, command string) map[string]any {
	return map[string]any{"session": session, "name": "bash", "arguments": map[string]any{"command": command}}
}

func oneshot(session, command string, background bool) map[string]any {
	args := map[string]any{"command": command, "description": "test command"}
	if background {
		args["run_in_background"] = true
	}
	return map[string]any{"session": session, "name": "bash", "arguments": args}
}

// QueuedPersistentCallsNeverRunAfterClose guards issue 10: a persistent bash
// call queued behind a running one when session/close arrived ran after
// the close had answered, starting a shell that lived until the runtime
// closed. Now the running call is cancelled, the queued ones are answered
// "session closed" without running, and once the close answered nothing of
// the session is alive.
func QueuedPersistentCallsNeverRunAfterClose(t *testing.T, open Open) {
	c := start(t, open, `{"profile":"persistent"}`)
	dir := t.TempDir()
	token := rpcclient.Token()
	newSession(t, c, "q", dir, map[string]string{"SP_TOKEN": token})
	running := c.Send("tools/call", bash("q", "touch started; sleep 300"))
	rpcclient.Eventually(t, "the first call to start", func() bool { return exists(filepath.Join(dir, "started")) })
	var queued []string
	for i := range 3 {
		queued = append(queued, c.Send("tools/call", bash("q", fmt.Sprintf("touch queued-%d; sleep 300 &", i))))
	}
	if r := c.Call("session/close", map[string]any{"session": "q"}); r.Error != nil {
		t.Fatalf("session/close: %s", r.Message())
	}
	// The close has answered: from here nothing of the session may exist.
	if n := rpcclient.CountProcs(t, token); n != 0 {
		t.Errorf("%d processes of the closed session are alive after the close answered", n)
	}
	if r := c.Wait(running); r.Code() != -32800 || !strings.Contains(r.Message(), `session "q" was closed while the call ran`) {
		t.Errorf("the running call: want cancelled because the session closed, got %d %q", r.Code(), r.Message())
	}
	for _, id := range queued {
		r := c.Wait(id)
		if r.Code() != -32001 || !strings.Contains(r.Message(), `session "q" is closed (it was closed before this call started)`) {
			t.Errorf("a queued call: want the session-closed error, got %d %q", r.Code(), r.Message())
		}
	}
	for i := range 3 {
		if exists(filepath.Join(dir, fmt.Sprintf("queued-%d", i))) {
			t.Errorf("queued call %d ran although its session was closed first", i)
		}
	}
	if n := rpcclient.CountProcs(t, token); n != 0 {
		t.Errorf("%d processes of the closed session are alive", n)
	}
}

// NewSessionWithClosedIDInheritsNothingPersistent guards issue 10: a new
// session created with the id of a closed one inherited its leftover shell
// (cwd, variables, functions: another tenant's secrets).
func NewSessionWithClosedIDInheritsNothingPersistent(t *testing.T, open Open) {
	c := start(t, open, `{"profile":"persistent"}`)
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	newSession(t, c, "reuse", dir, nil)
	c.Call("tools/call", bash("reuse", "export SECRET=hunter2; cd sub; leak() { echo FUNCTION-LEAKED; }; alias la='echo ALIAS-LEAKED'")).Text(t)
	if r := c.Call("session/close", map[string]any{"session": "reuse"}); r.Error != nil {
		t.Fatal(r.Message())
	}
	newSession(t, c, "reuse", dir, nil)
	got := c.Call("tools/call", bash("reuse", `echo "secret=[$SECRET] pwd=$(pwd)"; type leak 2>&1 | head -1; alias 2>&1`)).Text(t)
	if strings.Contains(got, "hunter2") || strings.Contains(got, "FUNCTION-LEAKED") || strings.Contains(got, "ALIAS-LEAKED") || strings.Contains(got, sub) {
		t.Fatalf("the new session sees the closed session's shell:\n%s", got)
	}
	if !strings.Contains(got, "secret=[] pwd="+dir) {
		t.Fatalf("want a fresh shell in %s, got:\n%s", dir, got)
	}
}

// NewSessionWithClosedIDInheritsNothingOneshot guards issue 10: a new
// session with a closed session's id could read and stop the old session's
// background tasks and their logs, and receive its notices.
func NewSessionWithClosedIDInheritsNothingOneshot(t *testing.T, open Open) {
	c := start(t, open, `{"testTools":true}`)
	dir := t.TempDir()
	newSession(t, c, "reuse", dir, nil)
	started := c.Call("tools/call", oneshot("reuse", "echo SECRET-OUTPUT; sleep 300", true)).Text(t)
	taskID := between(started, "Started background task ", ".")
	if taskID == "" {
		t.Fatalf("no task id in %q", started)
	}
	if r := c.Call("session/close", map[string]any{"session": "reuse"}); r.Error != nil {
		t.Fatal(r.Message())
	}
	newSession(t, c, "reuse", dir, nil)
	for _, tool := range []string{"bash_output", "bash_kill"} {
		r := c.Call("tools/call", map[string]any{"session": "reuse", "name": tool, "arguments": map[string]any{"task_id": taskID}})
		if text := r.Text(t); strings.Contains(text, "SECRET-OUTPUT") || !strings.Contains(text, "belongs to another session") {
			t.Errorf("%s of the old session's task from the new session: %q", tool, text)
		}
	}
	// A notice the new session's own tool sends arrives under its id; the
	// old session's never do (the core test proves that directly).
	c.Call("tools/call", map[string]any{"session": "reuse", "name": "_notify", "arguments": map[string]any{"text": "mine"}})
	for _, n := range c.Notices() {
		if n.Session == "reuse" && n.Text != "mine" {
			t.Errorf("the new session received a notice it did not cause: %q", n.Text)
		}
	}
}

// PipelinedCloseNewCall guards issue 10: session/close S, session/new S and
// tools/call S sent back to back mostly failed the new session's call, and
// now and then ran it in the old shell. Every call must run, in the new
// session.
func PipelinedCloseNewCall(t *testing.T, open Open, profile string) {
	c := start(t, open, fmt.Sprintf(`{"profile":%q}`, profile))
	dir := t.TempDir()
	newSession(t, c, "p", dir, map[string]string{"GEN": "0"})
	if profile == "persistent" {
		c.Call("tools/call", bash("p", "export MARK=gen0")).Text(t)
	}
	for gen := 1; gen <= 10; gen++ {
		closeID := c.Send("session/close", map[string]any{"session": "p"})
		newID := c.Send("session/new", map[string]any{"cwd": dir, "id": "p", "env": map[string]string{"GEN": fmt.Sprint(gen)}})
		command := fmt.Sprintf(`echo "gen=$GEN mark=[$MARK]"; export MARK=gen%d`, gen)
		params := oneshot("p", command, false)
		if profile == "persistent" {
			params = bash("p", command)
		}
		callID := c.Send("tools/call", params)
		if r := c.Wait(closeID); r.Error != nil {
			t.Fatalf("gen %d: close: %s", gen, r.Message())
		}
		if r := c.Wait(newID); r.Error != nil {
			t.Fatalf("gen %d: new: %s", gen, r.Message())
		}
		got := c.Wait(callID).Text(t)
		if want := fmt.Sprintf("gen=%d mark=[]", gen); !strings.Contains(got, want) {
			t.Fatalf("gen %d: the call did not run in a fresh new session: %q (want %q)", gen, got, want)
		}
	}
}

// OneShotCommandsSentBeforeCloseDie guards issue 10: one-shot commands
// (foreground and background) sent just before session/close survived it.
func OneShotCommandsSentBeforeCloseDie(t *testing.T, open Open) {
	c := start(t, open, `{}`)
	dir := t.TempDir()
	for round := range 5 {
		token := rpcclient.Token()
		id := fmt.Sprintf("os%d", round)
		newSession(t, c, id, dir, map[string]string{"SP_TOKEN": token})
		fg := c.Send("tools/call", oneshot(id, "sleep 300", false))
		bg := c.Send("tools/call", oneshot(id, "sleep 300", true))
		if r := c.Call("session/close", map[string]any{"session": id}); r.Error != nil {
			t.Fatal(r.Message())
		}
		if n := rpcclient.CountProcs(t, token); n != 0 {
			t.Fatalf("round %d: %d processes started just before the close outlived it", round, n)
		}
		// Each call is answered: cancelled, refused, or (the background
		// one, if it started) its start report — and whatever it started is
		// dead, as counted above.
		for _, rid := range []string{fg, bg} {
			if r := c.Wait(rid); r.Error != nil && r.Code() != -32800 && r.Code() != -32001 {
				t.Fatalf("round %d: unexpected answer %d %q", round, r.Code(), r.Message())
			}
		}
	}
}

// ClosedSessionErrorsSayClosed guards issues 10 and 11: a call naming a
// closed session is told, in our words, that the session is closed (not to
// create one with a wire method), and a never-opened one that it does not
// exist.
func ClosedSessionErrorsSayClosed(t *testing.T, open Open) {
	c := start(t, open, `{"testTools":true}`)
	newSession(t, c, "gone", "/", nil)
	c.Call("session/close", map[string]any{"session": "gone"})
	for _, r := range []rpcclient.Reply{
		c.Call("tools/call", map[string]any{"session": "gone", "name": "_echo"}),
		c.Call("session/close", map[string]any{"session": "gone"}),
	} {
		if r.Code() != -32001 || !strings.Contains(r.Message(), `session "gone" is closed`) || strings.Contains(r.Message(), "session/new") {
			t.Errorf("want a session-closed error in our words, got %d %q", r.Code(), r.Message())
		}
	}
	if r := c.Call("tools/call", map[string]any{"session": "never", "name": "_echo"}); r.Code() != -32001 || !strings.Contains(r.Message(), `no session "never"`) {
		t.Errorf("never-opened session: %d %q", r.Code(), r.Message())
	}
}

// PersistentBashRefusesCallWithoutSession guards issue 11: PROTOCOL.md said
// persistent bash needs a session, but it ran without one on a shared shell
// whose pipelined calls answered out of order. Now it is refused.
func PersistentBashRefusesCallWithoutSession(t *testing.T, open Open) {
	c := start(t, open, `{"profile":"persistent"}`)
	r := c.Call("tools/call", map[string]any{"name": "bash", "arguments": map[string]any{"command": "echo hi"}})
	if r.Code() != -32602 || !strings.Contains(r.Message(), `must name one in "session"`) {
		t.Fatalf("want invalid params naming the missing session, got %d %q", r.Code(), r.Message())
	}
}

// BaseEnvIsTheSessionsEnvironment guards issue 10: the library transport
// gave commands the environment the host process started with. A client
// now sends its current environment as session/new's baseEnv, which
// replaces the runtime's own for that session on every carrier; env is set
// over it.
func BaseEnvIsTheSessionsEnvironment(t *testing.T, open Open, profile string) {
	c := start(t, open, fmt.Sprintf(`{"profile":%q}`, profile))
	path := os.Getenv("PATH")
	r := c.Call("session/new", map[string]any{"cwd": "/", "id": "e",
		"baseEnv": map[string]string{"PATH": path, "SP_ADDED_LATER": "yes", "SP_OVERRIDDEN": "base"},
		"env":     map[string]string{"SP_OVERRIDDEN": "env"}})
	if r.Error != nil {
		t.Fatal(r.Message())
	}
	command := `echo "added=[$SP_ADDED_LATER] over=[$SP_OVERRIDDEN] home=[$HOME] user=[$USER]"`
	params := bash("e", command)
	if profile == "oneshot" {
		params = oneshot("e", command, false)
	}
	got := c.Call("tools/call", params).Text(t)
	if !strings.Contains(got, "added=[yes] over=[env] home=[] user=[]") {
		t.Fatalf("commands must see baseEnv with env over it, and nothing of the runtime's own environment: %q", got)
	}
	for member, vars := range map[string]map[string]string{"baseEnv": {"A=B": "x"}, "env": {"": "x"}} {
		r := c.Call("session/new", map[string]any{"cwd": "/", member: vars})
		if r.Code() != -32602 || !strings.Contains(r.Message(), member+": environment variable name") {
			t.Errorf("bad %s: %d %q", member, r.Code(), r.Message())
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func between(s, prefix, suffix string) string {
	_, rest, ok := strings.Cut(s, prefix)
	if !ok {
		return ""
	}
	out, _, _ := strings.Cut(rest, suffix)
	return out
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
