package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellport/shellport/internal/carrier/inproc"
	"github.com/shellport/shellport/internal/core"
)

// hangGuard bounds every wait in these tests; it only keeps a broken build
// from hanging, it never measures speed.
const hangGuard = 30 * time.Second

// fixture is one shellport MCP server and the SDK's own client connected to
// it over a pair of pipes, the way a client drives `shellport mcp`.
type fixture struct {
	cs        *sdk.ClientSession
	clientOut io.WriteCloser // the server's stdin
	served    chan error     // Serve's result

	mu       sync.Mutex
	logs     []string
	progress []*sdk.ProgressNotificationParams
	onProg   func(*sdk.ProgressNotificationParams)
}

// Protocol versions of the two eras the SDK speaks: the initialize
// handshake, and the stateless era where every request carries its own
// version.
const (
	handshakeEra = "2025-11-25"
	statelessEra = "2026-07-28"
)

func start(t *testing.T, cfg core.Config, cwd string) *fixture {
	t.Helper()
	return startEra(t, cfg, cwd, handshakeEra)
}

func startEra(t *testing.T, cfg core.Config, cwd, version string) *fixture {
	t.Helper()
	cfg, err := core.ParseConfig(mustJSON(cfg))
	if err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	f := &fixture{clientOut: clientOut, served: make(chan error, 1)}
	go func() {
		f.served <- Serve(context.Background(), serverIn, serverOut, Options{
			Core:             core.Options{Config: cfg, SpawnHelper: testkit.SpawnHelper(t)},
			Cwd:              cwd,
			ProgressInterval: 20 * time.Millisecond,
		})
		_ = serverOut.Close()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			f.mu.Lock()
			f.logs = append(f.logs, fmt.Sprint(r.Params.Data))
			f.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			f.mu.Lock()
			f.progress = append(f.progress, r.Params)
			hook := f.onProg
			f.mu.Unlock()
			if hook != nil {
				hook(r.Params)
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated protocol version %s, want %s", got, version)
	}
	f.cs = cs
	t.Cleanup(func() {
		_ = cs.Close()
		f.wait(t)
	})
	return f
}

// wait returns Serve's result once the client has gone.
func (f *fixture) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-f.served:
		f.served <- err // for the next caller
		return err
	case <-time.After(hangGuard):
		t.Fatal("Serve did not return after the client left")
		return nil
	}
}

func (f *fixture) call(t *testing.T, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// asJSON normalises a value through JSON, for comparisons across types.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal(mustJSON(v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// alive reports whether pid runs (a zombie counts as dead).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, "the command to write its pid", func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

// The tools an MCP client lists are the runtime's own: same names, same
// descriptions, same input schemas, with annotations by canonical name (a
// renamed tool keeps them).
func TestListToolsIsOurs(t *testing.T) {
	cfg := core.Config{Tools: map[string]json.RawMessage{"str_replace_editor": json.RawMessage(`{"name":"edit"}`)}}
	f := start(t, cfg, t.TempDir())
	got, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := inproc.OpenOptions(core.Options{Config: cfg, SpawnHelper: testkit.SpawnHelper(t)})
	defer conn.Close()
	reply, err := conn.Call([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"format":"mcp"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Result struct {
			Tools []toolInfo `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(reply, &want); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != len(want.Result.Tools) {
		t.Fatalf("%d tools, want %d", len(got.Tools), len(want.Result.Tools))
	}
	byName := map[string]*sdk.Tool{}
	for _, tool := range got.Tools {
		byName[tool.Name] = tool
	}
	for _, w := range want.Result.Tools {
		g := byName[w.Name]
		if g == nil || g.Description != w.Description {
			t.Errorf("tool %q missing or with another description", w.Name)
			continue
		}
		if !reflect.DeepEqual(asJSON(t, g.InputSchema), asJSON(t, w.InputSchema)) {
			t.Errorf("%s: input schema differs:\n got %s\nwant %s", w.Name, mustJSON(g.InputSchema), w.InputSchema)
		}
	}
	if a := byName["bash"].Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || !*a.OpenWorldHint {
		t.Errorf("bash annotations %+v", a)
	}
	if a := byName["bash_output"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("bash_output annotations %+v", a)
	}
	if a := byName["edit"].Annotations; a == nil || a.DestructiveHint == nil || *a.OpenWorldHint {
		t.Errorf("renamed editor lost its annotations: %+v", a)
	}
}

// A result reaches the MCP client exactly as the runtime made it: text,
// isError, structuredContent and the presentation in _meta.
func TestResultIsOurs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("one\n\ttwo\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := start(t, core.Config{}, dir)
	conn := inproc.OpenOptions(core.Options{SpawnHelper: testkit.SpawnHelper(t)})
	defer conn.Close()
	if _, err := conn.Call(mustJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": map[string]any{"cwd": dir, "id": "s"}})); err != nil {
		t.Fatal(err)
	}
	for i, args := range []map[string]any{
		{"command": "view", "path": file},
		{"command": "view", "path": "relative.txt"},
		{"command": "frobnicate", "path": file},
		{"command": "view", "path": file, "bogus": 1},
	} {
		got := f.call(t, "str_replace_editor", args)
		reply, err := conn.Call(mustJSON(map[string]any{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
			"params": map[string]any{"session": "s", "name": "str_replace_editor", "arguments": args}}))
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Result core.CallResult `json:"result"`
		}
		if err := json.Unmarshal(reply, &want); err != nil {
			t.Fatal(err)
		}
		w := want.Result
		if text(got) != w.Content[0].Text || got.IsError != w.IsError {
			t.Errorf("%v: got %q (isError %v), want %q (isError %v)", args, text(got), got.IsError, w.Content[0].Text, w.IsError)
		}
		if !reflect.DeepEqual(asJSON(t, got.StructuredContent), asJSON(t, w.StructuredContent)) {
			t.Errorf("%v: structuredContent %v, want %v", args, got.StructuredContent, w.StructuredContent)
		}
		if !reflect.DeepEqual(asJSON(t, got.Meta["presentation"]), asJSON(t, w.Meta["presentation"])) {
			t.Errorf("%v: presentation %s, want %s", args, mustJSON(got.Meta["presentation"]), mustJSON(w.Meta["presentation"]))
		}
	}
}

// One MCP connection is one session: a persistent shell keeps its state
// from call to call, in the --cwd directory; a failing command is an
// ordinary result, not an error.
func TestPersistentSession(t *testing.T) {
	dir := t.TempDir()
	f := start(t, core.Config{Profile: core.ProfilePersistent}, dir)
	if r := f.call(t, "bash", map[string]any{"command": "pwd; mkdir sub && cd sub && export X=42"}); text(r) != dir+"\n" || r.IsError {
		t.Fatalf("first call: %q", text(r))
	}
	r := f.call(t, "bash", map[string]any{"command": "pwd; echo $X; false"})
	if text(r) != dir+"/sub\n42\n[exit code: 1]" || r.IsError {
		t.Fatalf("second call: %q (isError %v)", text(r), r.IsError)
	}
	sc := asJSON(t, r.StructuredContent).(map[string]any)
	if sc["exitCode"] != 1.0 || sc["shellReset"] != false {
		t.Errorf("structuredContent %v", sc)
	}
	if r := f.call(t, "bash", map[string]any{"command": 7}); !r.IsError || !strings.Contains(text(r), `"command" must be a string`) {
		t.Errorf("bad arguments: %q isError %v", text(r), r.IsError)
	}
}

// Issue 14: a client's cancellation cancels the call; the command's process
// is gone when the cancellation returns, and the persistent shell was reset.
func TestCancelKillsAndResets(t *testing.T) {
	dir := t.TempDir()
	f := start(t, core.Config{Profile: core.ProfilePersistent}, dir)
	f.call(t, "bash", map[string]any{"command": "export KEPT=yes"})
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{
			"command": fmt.Sprintf("bash -c 'echo $$ > %s; exec sleep 600'", pidFile)}})
		errs <- err
	}()
	pid := readPid(t, pidFile)
	if !alive(pid) {
		t.Fatal("the command is not running")
	}
	cancel()
	if err := <-errs; err == nil {
		t.Fatal("a cancelled call returned a result")
	}
	waitFor(t, "the cancelled command to die", func() bool { return !alive(pid) })
	// The next result says the shell was reset, then shows the fresh shell.
	if r := text(f.call(t, "bash", map[string]any{"command": "echo ${KEPT:-gone}"})); !strings.HasSuffix(r, "\ngone\n") || !strings.Contains(r, "reset the shell") {
		t.Errorf("the shell was not reset, or the result does not say so: %q", r)
	}
}

// Issue 14: when the client goes (its end of stdin closes), everything the
// session started is killed, calls in flight included, and Serve returns.
func TestClientGoneKillsEverything(t *testing.T) {
	dir := t.TempDir()
	f := start(t, core.Config{}, dir)
	bg := f.call(t, "bash", map[string]any{"command": fmt.Sprintf("echo $$ > %s/bg; exec sleep 600", dir), "description": "Start a background task", "run_in_background": true})
	if bg.IsError {
		t.Fatal(text(bg))
	}
	bgPid := readPid(t, filepath.Join(dir, "bg"))
	go func() {
		_, _ = f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{
			"command": fmt.Sprintf("echo $$ > %s/fg; exec sleep 600", dir), "description": "Sleep in the foreground"}})
	}()
	fgPid := readPid(t, filepath.Join(dir, "fg"))
	_ = f.clientOut.Close() // the client is gone
	if err := f.wait(t); err != nil {
		t.Errorf("Serve: %v", err)
	}
	for _, pid := range []int{bgPid, fgPid} {
		if alive(pid) {
			t.Errorf("pid %d survived its session", pid)
		}
	}
}

// A client that asks for progress gets notifications while the command
// runs: increasing progress and a message saying how long it has run.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	f := start(t, core.Config{Profile: core.ProfilePersistent}, dir)
	gate := filepath.Join(dir, "gate")
	var once sync.Once
	f.mu.Lock()
	f.onProg = func(p *sdk.ProgressNotificationParams) {
		if p.Progress > 0.05 { // a second notification is due: let the command end
			once.Do(func() { _ = os.WriteFile(gate, nil, 0o644) })
		}
	}
	f.mu.Unlock()
	params := &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{
		"command": fmt.Sprintf("until [ -e %s ]; do sleep 0.01; done; echo done", gate)}}
	params.SetProgressToken("tok-1")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := f.cs.CallTool(ctx, params)
	if err != nil || text(res) != "done\n" {
		t.Fatalf("call: %v %q", err, text(res))
	}
	f.mu.Lock()
	got := append([]*sdk.ProgressNotificationParams(nil), f.progress...)
	f.mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("%d progress notifications, want at least 2", len(got))
	}
	for i, p := range got {
		if p.ProgressToken != "tok-1" || !strings.HasPrefix(p.Message, "running for ") {
			t.Errorf("notification %d: %+v", i, p)
		}
		if i > 0 && p.Progress <= got[i-1].Progress {
			t.Errorf("progress does not increase: %v then %v", got[i-1].Progress, p.Progress)
		}
	}
	// A call without a token gets none. A notification of the first call
	// may still be on its way to the client's handler after that call
	// returned, so count only those that are not the first call's: any
	// sent for a call without a token carries no tok-1.
	f.call(t, "bash", map[string]any{"command": "sleep 0.2"})
	f.mu.Lock()
	stray := 0
	for _, p := range f.progress {
		if p.ProgressToken != "tok-1" {
			stray++
		}
	}
	f.mu.Unlock()
	if stray != 0 {
		t.Errorf("%d progress notifications for a call that asked for none", stray)
	}
}

// Issue 17: with live output, a progress message quotes the latest line
// the command printed while it still runs, in both bash profiles.
func TestProgressQuotesLiveOutput(t *testing.T) {
	for _, profile := range []string{core.ProfileOneshot, core.ProfilePersistent} {
		t.Run(profile, func(t *testing.T) {
			dir := t.TempDir()
			f := start(t, core.Config{Profile: profile}, dir)
			gate := filepath.Join(dir, "gate")
			var once sync.Once
			f.mu.Lock()
			f.onProg = func(p *sdk.ProgressNotificationParams) {
				if strings.HasSuffix(p.Message, ": halfway there") { // the line reached the client: let the command end
					once.Do(func() { _ = os.WriteFile(gate, nil, 0o644) })
				}
			}
			f.mu.Unlock()
			args := map[string]any{"command": fmt.Sprintf("echo starting; echo halfway there; until [ -e %s ]; do sleep 0.01; done; echo done", gate)}
			if profile == core.ProfileOneshot {
				args["description"] = "wait for the gate"
			}
			params := &sdk.CallToolParams{Name: "bash", Arguments: args}
			params.SetProgressToken("tok-live")
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			res, err := f.cs.CallTool(ctx, params)
			if err != nil || !strings.HasPrefix(text(res), "starting\nhalfway there\ndone\n") {
				t.Fatalf("call: %v %q", err, text(res))
			}
		})
	}
}

// The progress message quotes the last line of output once there is one.
func TestProgressMessage(t *testing.T) {
	p := &callProgress{}
	if m := p.message(3200 * time.Millisecond); m != "running for 3s" {
		t.Errorf("message %q", m)
	}
	p.output("collecting...\n")
	p.output("test_a PASSED\ntest_b ")
	if m := p.message(4 * time.Second); m != "running for 4s: test_b" {
		t.Errorf("message %q", m)
	}
	p.output("\n\n")
	if m := p.message(5 * time.Second); m != "running for 5s: test_b" {
		t.Errorf("blank output replaced the line: %q", m)
	}
	long := strings.Repeat("é", maxProgressLine)
	if got := lastLine(long); len(got) > maxProgressLine+len("…") || !strings.HasSuffix(got, "…") || !json.Valid(mustJSON(got)) {
		t.Errorf("long line cut badly: %d bytes", len(got))
	}
}

// Background-task notices reach the client as log messages: in the
// handshake era once it set a log level, in the stateless era within a
// later request that asked for log messages.
func TestNoticesAsLogMessages(t *testing.T) {
	const notice = "Background task bash-1 finished (completed, exit code: 0): make"
	seen := func(f *fixture) func() bool {
		return func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.logs) > 0
		}
	}
	t.Run(handshakeEra, func(t *testing.T) {
		f := start(t, core.Config{TestTools: true}, t.TempDir())
		if err := f.cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		f.call(t, "_notify", map[string]any{"text": notice})
		waitFor(t, "the notice", seen(f))
		if f.logs[0] != notice || len(f.logs) != 1 {
			t.Errorf("logs %q", f.logs)
		}
	})
	t.Run(statelessEra, func(t *testing.T) {
		f := startEra(t, core.Config{TestTools: true}, t.TempDir(), statelessEra)
		f.call(t, "_notify", map[string]any{"text": notice})
		// A request that did not ask for log messages leaves the notice waiting.
		f.call(t, "_echo", map[string]any{})
		f.mu.Lock()
		early := len(f.logs)
		f.mu.Unlock()
		if early != 0 {
			t.Fatalf("a notice was sent without a request asking for logs: %q", f.logs)
		}
		waitFor(t, "the notice", func() bool {
			params := &sdk.CallToolParams{Name: "_echo", Arguments: map[string]any{}, Meta: sdk.Meta{sdk.MetaKeyLogLevel: "info"}}
			if _, err := f.cs.CallTool(context.Background(), params); err != nil {
				t.Fatal(err)
			}
			return seen(f)()
		})
		if f.logs[0] != notice || len(f.logs) != 1 {
			t.Errorf("logs %q", f.logs)
		}
	})
}

// Both eras serve the same tools and results.
func TestBothEras(t *testing.T) {
	for _, era := range []string{handshakeEra, statelessEra} {
		t.Run(era, func(t *testing.T) {
			dir := t.TempDir()
			f := startEra(t, core.Config{Profile: core.ProfilePersistent}, dir, era)
			list, err := f.cs.ListTools(context.Background(), nil)
			if err != nil || len(list.Tools) != 2 {
				t.Fatalf("tools: %v %v", list, err)
			}
			f.call(t, "bash", map[string]any{"command": "cd /"})
			if r := f.call(t, "bash", map[string]any{"command": "pwd"}); text(r) != "/\n" || r.Meta["presentation"] == nil {
				t.Errorf("%q %v", text(r), r.Meta)
			}
		})
	}
}

// A runtime that cannot start is reported before the client is served.
func TestStartErrors(t *testing.T) {
	in, _ := io.Pipe()
	_, out := io.Pipe()
	for _, tc := range []struct {
		cfg  core.Config
		cwd  string
		want string
	}{
		{core.Config{}, "/nonexistent/dir", `open session in "/nonexistent/dir"`},
		{core.Config{Profile: "turbo"}, "/", `unknown profile "turbo"`},
	} {
		err := Serve(context.Background(), in, out, Options{Core: core.Options{Config: tc.cfg, SpawnHelper: testkit.SpawnHelper(t)}, Cwd: tc.cwd})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want it to say %q", tc.cfg, err, tc.want)
		}
	}
}
