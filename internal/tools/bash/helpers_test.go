package bash_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// kit is one executor's three tools plus what its host received.
type kit struct {
	bash, output, kill tools.Tool
	spill              string
	notices            *noticeLog
}

type notice struct{ session, text string }

type noticeLog struct {
	mu   sync.Mutex
	list []notice
	ch   chan notice
}

func (n *noticeLog) add(session, text string) {
	n.mu.Lock()
	n.list = append(n.list, notice{session, text})
	n.mu.Unlock()
	select {
	case n.ch <- notice{session, text}:
	default:
	}
}

func (n *noticeLog) all() []notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notice(nil), n.list...)
}

// newKit builds the tools with a private spill directory and closes them when
// the test ends.
func newKit(t *testing.T, cfg bash.Config) *kit {
	t.Helper()
	n := &noticeLog{ch: make(chan notice, 64)}
	k := &kit{spill: t.TempDir(), notices: n}
	if cfg.SpawnHelper == "" {
		cfg.SpawnHelper = testkit.SpawnHelper(t)
	}
	ts := bash.New(tools.Host{Notify: n.add, SpillDir: k.spill}, cfg)
	if len(ts) != 3 {
		t.Fatalf("New returned %d tools, want 3", len(ts))
	}
	k.bash, k.output, k.kill = ts[0], ts[1], ts[2]
	t.Cleanup(func() {
		if err := k.bash.(tools.Closer).Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return k
}

func session(id, cwd string) tools.Session { return tools.Session{ID: id, Key: id, Cwd: cwd} }

// call runs tool with args (a JSON string or a value to marshal).
func call(t *testing.T, tool tools.Tool, s tools.Session, args any) *tools.Result {
	t.Helper()
	return callCtx(t, context.Background(), tool, s, args)
}

func callCtx(t *testing.T, ctx context.Context, tool tools.Tool, s tools.Session, args any) *tools.Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := tool.Call(ctx, &tools.Call{ID: "call-1", Session: s, Arguments: json.RawMessage(raw)})
	if err != nil {
		t.Fatalf("%s %s: Go error %v", tool.Name(), raw, err)
	}
	if res == nil {
		t.Fatalf("%s %s: nil result", tool.Name(), raw)
	}
	return res
}

// run is a foreground bash call that must not be an error.
func run(t *testing.T, k *kit, s tools.Session, command string, extra ...any) *tools.Result {
	t.Helper()
	args := map[string]any{"command": command, "description": "Run a command for a test"}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	res := call(t, k.bash, s, args)
	if res.IsError {
		t.Fatalf("bash %q: isError: %s", command, res.Text)
	}
	return res
}

func task(id string) map[string]any { return map[string]any{"task_id": id} }

// startTask starts command in the background and returns its id.
func startTask(t *testing.T, k *kit, s tools.Session, command string) string {
	t.Helper()
	res := call(t, k.bash, s, map[string]any{"command": command, "description": "Start a background task for a test", "run_in_background": true})
	if res.IsError {
		t.Fatalf("background %q: %s", command, res.Text)
	}
	id, _ := res.Structured["taskId"].(string)
	if id == "" {
		t.Fatalf("no taskId in %v", res.Structured)
	}
	return id
}

// waitFor polls cond until it holds or a generous deadline passes. It is a
// bound against hanging, not a speed check.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false
		}
		return syscall.Kill(pid, 0) == nil // no /proc: kill -0 it is
	}
	// The state follows the command name, which is in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// readPids reads the whitespace-separated pids a command wrote to path,
// waiting for the file to appear.
func readPids(t *testing.T, path string, want int) []int {
	t.Helper()
	var pids []int
	waitFor(t, "pids in "+filepath.Base(path), func() bool {
		b, _ := os.ReadFile(path)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		return len(pids) >= want
	})
	return pids
}

// killLater makes sure pids are gone when the test ends, whatever happened.
func killLater(t *testing.T, pids ...int) {
	t.Helper()
	t.Cleanup(func() {
		for _, pid := range pids {
			if pid > 1 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

func waitDead(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		waitFor(t, fmt.Sprintf("process %d to die", pid), func() bool { return !alive(pid) })
	}
}

// spawnHelperPath is the spawn helper for examples, which get no *testing.T.
var spawnHelperPath = func() string {
	p, err := testkit.BuildSpawnHelper()
	if err != nil {
		panic(err)
	}
	return p
}()
