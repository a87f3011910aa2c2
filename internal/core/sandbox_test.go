package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 12 at the protocol: session/update, the sandbox member of every
// result, the descriptions, initialize's report, and a restricted default.

func needSandbox(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(); s.Backend != sandbox.BackendLandlock || !s.Seccomp {
		t.Skipf("no Landlock and seccomp on this machine: %s", s.Reason)
	}
}

type sbRuntime struct {
	t   *testing.T
	rt  *Runtime
	col *collector
	n   int
}

func newSandboxRuntime(t *testing.T, cfg Config) *sbRuntime {
	t.Helper()
	col := &collector{msgs: map[string]string{}, got: make(chan struct{}, 1000)}
	rt := New(Options{Config: cfg, Send: col.send, SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = rt.Close() })
	return &sbRuntime{t: t, rt: rt, col: col}
}

type reply struct {
	Result json.RawMessage
	Error  *rpc.Error
}

// do sends one request and returns its reply.
func (s *sbRuntime) do(method string, params any) reply {
	s.t.Helper()
	s.n++
	p, _ := json.Marshal(params)
	s.rt.Deliver([]byte(`{"jsonrpc":"2.0","id":` + jsonInt(s.n) + `,"method":"` + method + `","params":` + string(p) + `}`))
	var r reply
	if err := json.Unmarshal([]byte(s.col.wait(s.t, jsonInt(s.n))), &r); err != nil {
		s.t.Fatal(err)
	}
	return r
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

type callResult struct {
	Content           []struct{ Text string }
	IsError           bool
	StructuredContent map[string]any
}

func (s *sbRuntime) call(session, name string, args map[string]any) callResult {
	s.t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if session != "" {
		params["session"] = session
	}
	r := s.do("tools/call", params)
	if r.Error != nil {
		s.t.Fatalf("tools/call %s: %v", name, r.Error)
	}
	var c callResult
	_ = json.Unmarshal(r.Result, &c)
	return c
}

func (c callResult) text() string { return c.Content[0].Text }

func (c callResult) mode() any {
	sb, _ := c.StructuredContent["sandbox"].(map[string]any)
	return sb["mode"]
}

func TestSessionUpdateRefusedWhileTheShellIsOpen(t *testing.T) {
	needSandbox(t)
	ws, out := t.TempDir(), t.TempDir()
	s := newSandboxRuntime(t, Config{Profile: ProfilePersistent})
	r := s.do("session/new", map[string]any{"cwd": ws, "id": "a", "sandbox": map[string]any{"mode": "workspace-write", "writableTmp": false}})
	if r.Error != nil || !strings.Contains(string(r.Result), `"sandbox":{"backend":"landlock","mode":"workspace-write"`) {
		t.Fatalf("session/new: %s %v", r.Result, r.Error)
	}
	if c := s.call("a", "bash", map[string]any{"command": "echo x > " + out + "/f"}); !strings.Contains(c.text(), "Permission denied") || c.IsError || c.mode() != "workspace-write" {
		t.Fatalf("%+v", c)
	}
	r = s.do("session/update", map[string]any{"session": "a", "sandbox": map[string]any{"mode": "read-only"}})
	if r.Error == nil || r.Error.Code != rpc.CodeSandbox || !strings.Contains(r.Error.Message, `session "a" has a persistent shell open under its sandbox (workspace-write)`) {
		t.Fatalf("update with the shell open: %s %v", r.Result, r.Error)
	}
	s.call("a", "bash", map[string]any{"command": "exit"})
	if r = s.do("session/update", map[string]any{"session": "a", "sandbox": map[string]any{"mode": "read-only"}}); r.Error != nil {
		t.Fatalf("update once the shell ended: %v", r.Error)
	}
	c := s.call("a", "bash", map[string]any{"command": "echo x > " + ws + "/g"})
	if !strings.Contains(c.text(), "Permission denied") || c.mode() != "read-only" {
		t.Fatalf("after the update: %+v", c)
	}
	for _, bad := range []struct {
		params map[string]any
		code   int
		want   string
	}{
		{map[string]any{"session": "a"}, rpc.CodeInvalidParams, `"sandbox" is required`},
		{map[string]any{"session": "zz", "sandbox": map[string]any{}}, rpc.CodeSessionNotFound, `no session "zz"`},
		{map[string]any{"session": "a", "sandbox": map[string]any{"mode": "none"}}, rpc.CodeInvalidParams, `unknown mode "none"`},
		{map[string]any{"session": "a", "sandbox": map[string]any{"allowWidening": true}}, rpc.CodeInvalidParams, "allowWidening is a setting of the runtime config"},
	} {
		r := s.do("session/update", bad.params)
		if r.Error == nil || r.Error.Code != bad.code || !strings.Contains(r.Error.Message, bad.want) {
			t.Errorf("session/update %v: %v, want %d %q", bad.params, r.Error, bad.code, bad.want)
		}
	}
}

func TestSandboxInResultsDescriptionsAndInitialize(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	s := newSandboxRuntime(t, Config{TestTools: true})
	r := s.do("initialize", map[string]any{})
	var init struct {
		Sandbox map[string]any
	}
	_ = json.Unmarshal(r.Result, &init)
	if init.Sandbox["backend"] != "landlock" || init.Sandbox["files"] != "landlock-thread" || init.Sandbox["default"].(map[string]any)["mode"] != "full-access" {
		t.Fatalf("initialize: %s", r.Result)
	}
	s.do("session/new", map[string]any{"cwd": ws, "id": "plain"})
	s.do("session/new", map[string]any{"cwd": ws, "id": "ro", "sandbox": map[string]any{"mode": "read-only", "network": true}})
	if c := s.call("plain", "_echo", map[string]any{}); c.StructuredContent["sandbox"] != nil {
		t.Fatalf("a session without a sandbox reports one: %+v", c)
	}
	if c := s.call("ro", "_echo", map[string]any{}); c.mode() != "read-only" {
		t.Fatalf("every result of a sandboxed session carries it: %+v", c)
	}
	descs := func(params map[string]any) map[string]string {
		var l struct {
			Tools []struct{ Name, Description string }
		}
		_ = json.Unmarshal(s.do("tools/list", params).Result, &l)
		out := map[string]string{}
		for _, tl := range l.Tools {
			out[tl.Name] = tl.Description
		}
		return out
	}
	plain, ro := descs(map[string]any{}), descs(map[string]any{"session": "ro"})
	line := "\n\nSandbox (read-only): files cannot be created or changed anywhere (the terminal and /dev/null excepted); network access is allowed."
	for _, name := range []string{"bash", "str_replace_editor"} {
		if ro[name] != plain[name]+line {
			t.Errorf("%s for the read-only session:\n%q", name, ro[name])
		}
	}
	if ro["bash_output"] != plain["bash_output"] || ro["_echo"] != plain["_echo"] {
		t.Error("a tool that neither runs commands nor changes files got the line")
	}
}

// A restricted runtime default holds sessions that ask for nothing and
// calls made without a session, and a session may only narrow it.
func TestRestrictedDefault(t *testing.T) {
	needSandbox(t)
	ws, out := t.TempDir(), t.TempDir()
	s := newSandboxRuntime(t, Config{Sandbox: sandbox.Config{Mode: "workspace-write", WritableTmp: new(bool)}})
	c := s.call("", "str_replace_editor", map[string]any{"command": "create", "path": filepath.Join(out, "x"), "file_text": "x"})
	if !c.IsError || !strings.Contains(c.text(), "this session's sandbox is workspace-write") || c.mode() != "workspace-write" {
		t.Fatalf("a call without a session: %+v", c)
	}
	c = s.call("", "bash", map[string]any{"command": "echo x > " + out + "/y", "description": "write"})
	if !strings.Contains(c.text(), "Permission denied") {
		t.Fatalf("a command without a session: %+v", c)
	}
	r := s.do("session/new", map[string]any{"cwd": ws, "sandbox": map[string]any{"network": true}})
	if r.Error == nil || r.Error.Code != rpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "network access is wider than the runtime's sandbox") {
		t.Fatalf("widening: %v", r.Error)
	}
	var sess struct{ Session string }
	_ = json.Unmarshal(s.do("session/new", map[string]any{"cwd": ws}).Result, &sess)
	if c := s.call(sess.Session, "bash", map[string]any{"command": "echo x > ok.txt && echo x > " + out + "/z", "description": "write"}); !strings.Contains(c.text(), out+"/z: Permission denied") {
		t.Fatalf("a session under the default: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(ws, "ok.txt")); err != nil {
		t.Fatal("the session's own directory is writable:", err)
	}
}

// A runtime whose default sandbox names a root that does not exist fails
// to start, naming it.
func TestDefaultSandboxCheckedAtInitialize(t *testing.T) {
	needSandbox(t)
	s := newSandboxRuntime(t, Config{Sandbox: sandbox.Config{Mode: "workspace-write", WritableRoots: []string{"/nonexistent/shellport"}}})
	r := s.do("initialize", map[string]any{})
	if r.Error == nil || !strings.Contains(r.Error.Message, "sandbox: writable root /nonexistent/shellport: no such file or directory") {
		t.Fatalf("initialize: %s %v", r.Result, r.Error)
	}
}
