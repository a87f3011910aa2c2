package core

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
)

// startRuntime returns a runtime initialized with config and a session
// "s" in dir.
func startRuntime(t *testing.T, config, dir string) (*Runtime, *collector) {
	t.Helper()
	col := &collector{msgs: map[string]string{}, got: make(chan struct{}, 1000)}
	rt := New(Options{Send: col.send, SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = rt.Close() })
	rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"config":%s}}`, config)))
	if reply := col.wait(t, `"init"`); !strings.Contains(reply, `"result"`) {
		t.Fatalf("initialize: %s", reply)
	}
	rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"new","method":"session/new","params":{"cwd":%q,"id":"s"}}`, dir)))
	col.wait(t, `"new"`)
	return rt, col
}

// listTools returns the MCP tools/list of rt: name → description.
func listTools(t *testing.T, rt *Runtime, col *collector) ([]string, map[string]string) {
	t.Helper()
	rt.Deliver([]byte(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`))
	var reply struct {
		Result struct {
			Tools []struct{ Name, Description string }
		}
	}
	if err := json.Unmarshal([]byte(col.wait(t, `"list"`)), &reply); err != nil {
		t.Fatal(err)
	}
	var names []string
	desc := map[string]string{}
	for _, tl := range reply.Result.Tools {
		names = append(names, tl.Name)
		desc[tl.Name] = tl.Description
	}
	return names, desc
}

// Issue 11: name and description are common to every tool and applied by
// the runtime; a tool's texts use the names of the others as configured.
func TestConfiguredNamesAndDescriptions(t *testing.T) {
	rt, col := startRuntime(t, `{"tools":{"bash":{"name":"run"},"bash_output":{"name":"read_task","description":"Mine."}}}`, t.TempDir())
	names, desc := listTools(t, rt, col)
	if strings.Join(names, ",") != "run,read_task,bash_kill,str_replace_editor" {
		t.Fatalf("names %v", names)
	}
	if desc["read_task"] != "Mine." {
		t.Errorf("configured description not used: %q", desc["read_task"])
	}
	if !strings.Contains(desc["run"], "Read new output with read_task and stop the task with bash_kill") {
		t.Errorf("bash's description does not use the configured names: %s", desc["run"])
	}
	if !strings.Contains(desc["bash_kill"], "Takes the task_id that run returned") || !strings.Contains(desc["bash_kill"], "can still be read with read_task") {
		t.Errorf("bash_kill's description does not use the configured names: %s", desc["bash_kill"])
	}
}

// Issue 11 (and 13): apply_patch is offered in our own profiles to models
// that prefer patches, when the config names it.
func TestApplyPatchIsOptIn(t *testing.T) {
	for _, profile := range []string{ProfileOneshot, ProfilePersistent} {
		rt, col := startRuntime(t, fmt.Sprintf(`{"profile":%q}`, profile), t.TempDir())
		if names, _ := listTools(t, rt, col); strings.Contains(strings.Join(names, ","), "apply_patch") {
			t.Errorf("%s: apply_patch mounted without being asked for: %v", profile, names)
		}
		dir := t.TempDir()
		rt, col = startRuntime(t, fmt.Sprintf(`{"profile":%q,"tools":{"apply_patch":{}}}`, profile), dir)
		names, _ := listTools(t, rt, col)
		if names[len(names)-1] != "apply_patch" {
			t.Fatalf("%s: apply_patch not mounted last: %v", profile, names)
		}
		patch := "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch"
		args, _ := json.Marshal(map[string]string{"patch": patch})
		rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"session":"s","name":"apply_patch","arguments":%s}}`, args)))
		if reply := col.wait(t, `"p"`); !strings.Contains(reply, `"status":"completed"`) {
			t.Fatalf("%s: %s", profile, reply)
		}
		if data, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(data) != "hello\n" {
			t.Fatalf("%s: patched file %q %v", profile, data, err)
		}
	}
}

// Issue 11: the drain at end of input is bounded by the longest call the
// config allows, not a constant of the carrier.
func TestLongestCallFollowsTheConfig(t *testing.T) {
	for config, want := range map[string]time.Duration{
		`{}`: 600*time.Second + 1500*time.Millisecond, // maxTimeoutMs, kill grace, drain
		`{"tools":{"bash":{"maxTimeoutMs":7200000}}}`:                     2*time.Hour + 1500*time.Millisecond,
		`{"tools":{"bash":{"timeoutMs":1000,"maxTimeoutMs":2000}}}`:       minLongestCall,
		`{"profile":"persistent","tools":{"bash":{"timeoutMs":3600000}}}`: time.Hour + 1500*time.Millisecond + 5*time.Second,
		`{"profile":"persistent"}`:                                        120*time.Second + 1500*time.Millisecond + 5*time.Second,
	} {
		rt, _ := startRuntime(t, config, t.TempDir())
		if got := rt.LongestCall(); got != want {
			t.Errorf("%s: LongestCall %v, want %v", config, got, want)
		}
	}
}

// sleepTool is a serial tool whose calls sleep for their "ms" argument.
type sleepTool struct{ orderTool }

func (s *sleepTool) Name() string { return "_serial_sleep" }
func (s *sleepTool) Call(ctx context.Context, c *tools.Call) (*tools.Result, error) {
	var args struct{ Ms int }
	_ = json.Unmarshal(c.Arguments, &args)
	select {
	case <-time.After(time.Duration(args.Ms) * time.Millisecond):
		return &tools.Result{Text: "slept"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Issue 11: Drain waits as long as calls keep ending, however many wait
// their turn, and gives up when none has ended for the longest call.
func TestDrainWaitsWhileCallsEnd(t *testing.T) {
	testOnlyExtraTools = func(tools.Host) []tools.Tool { return []tools.Tool{&sleepTool{}} }
	testOnlyDrainLimit = 400 * time.Millisecond
	t.Cleanup(func() { testOnlyExtraTools, testOnlyDrainLimit = nil, 0 })

	rt, col := startRuntime(t, `{}`, t.TempDir())
	for i := range 4 { // 4 × 250 ms in one session: longer than the limit in all, never idle that long
		rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"session":"s","name":"_serial_sleep","arguments":{"ms":250}}}`, i)))
	}
	if err := rt.Drain(context.Background()); err != nil {
		t.Fatalf("drain gave up while calls were still ending: %v", err)
	}
	for i := range 4 {
		if reply := col.wait(t, fmt.Sprint(i)); !strings.Contains(reply, "slept") {
			t.Fatalf("call %d: %s", i, reply)
		}
	}

	rt, _ = startRuntime(t, `{}`, t.TempDir())
	rt.Deliver([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"session":"s","name":"_serial_sleep","arguments":{"ms":60000}}}`))
	if err := rt.Drain(context.Background()); err == nil {
		t.Fatal("drain waited for a call that ended nothing for longer than the limit")
	}
}
