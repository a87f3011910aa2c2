package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
)

// Issue 6: the spawn helper is found through SHELLPORT_SPAWN_HELPER (a true
// override, checked and never silently dropped) or named by the config, and
// a persistent shell started through it has the terminal as its controlling
// terminal. Issue 10: on Linux it is required, and a runtime that cannot
// find it refuses to start, saying where it looked.

// buildHelper compiles cmd/shellport-spawn-helper and wraps it in a script
// that records each use in a marker file, so a test can tell the helper ran.
func buildHelper(t *testing.T) (wrapper, marker string) {
	t.Helper()
	helper := testkit.SpawnHelper(t)
	dir := t.TempDir()
	marker = filepath.Join(dir, "used")
	wrapper = filepath.Join(dir, "helper-wrapper")
	// The program's strings are in the spec file (--spec 5), not in the
	// helper's arguments: the marker gets both (the spec's past its
	// 24-byte header).
	script := "#!/bin/sh\necho \"$*\" >> '" + marker + "'\n" +
		"case \" $* \" in *' --spec 5 '*) tail -c +25 < /proc/self/fd/5 | tr '\\0' ' ' >> '" + marker + "';; esac\n" +
		"exec '" + helper + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper, marker
}

// rpcClient drives a serve instance one request at a time.
type rpcClient struct {
	t  *testing.T
	s  *servePipes
	id int
}

// call sends a request and returns its result, or its error message.
func (c *rpcClient) call(method string, params any) (json.RawMessage, string) {
	c.t.Helper()
	c.id++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.s.Send(msg); err != nil {
		c.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		line, err := c.s.Recv(time.Until(deadline))
		if err != nil || line == nil {
			break
		}
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &reply) != nil || reply.ID != c.id {
			continue // a notification, or not ours
		}
		if reply.Error != nil {
			return nil, reply.Error.Message
		}
		return reply.Result, ""
	}
	c.t.Fatalf("%s: no reply", method)
	return nil, ""
}

// bash runs a command in a fresh session and returns what the model reads.
func (c *rpcClient) bash(command string) string {
	c.t.Helper()
	res, errMsg := c.call("session/new", map[string]any{"cwd": c.t.TempDir()})
	if errMsg != "" {
		c.t.Fatalf("session/new: %s", errMsg)
	}
	var sess struct {
		Session string `json:"session"`
	}
	_ = json.Unmarshal(res, &sess)
	res, errMsg = c.call("tools/call", map[string]any{"session": sess.Session, "name": "bash", "arguments": map[string]any{"command": command}})
	if errMsg != "" {
		c.t.Fatalf("tools/call: %s", errMsg)
	}
	var out struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &out); err != nil || out.IsError || len(out.Content) == 0 {
		c.t.Fatalf("tools/call: unexpected result %s", res)
	}
	return out.Content[0].Text
}

// cttyProbe succeeds only in a shell whose controlling terminal is its pty.
const cttyProbe = `if { : < /dev/tty; } 2>/dev/null; then echo ctty-ok; else echo no-ctty; fi; pwd`

func assertHelperUsed(t *testing.T, marker, out string) {
	t.Helper()
	if !strings.Contains(out, "ctty-ok") {
		t.Fatalf("shell started through the helper has no controlling terminal: %q", out)
	}
	used, err := os.ReadFile(marker)
	if err != nil || !bytes.Contains(used, []byte("bash")) {
		t.Fatalf("the spawn helper was not used (marker: %q, %v)", used, err)
	}
}

func TestSpawnHelperFromEnvironment(t *testing.T) {
	wrapper, marker := buildHelper(t)
	t.Setenv(envSpawnHelper, wrapper)
	c := &rpcClient{t: t, s: startServe(t, "--config", `{"profile":"persistent"}`)}
	assertHelperUsed(t, marker, c.bash(cttyProbe))
}

func TestSpawnHelperFromConfig(t *testing.T) {
	wrapper, marker := buildHelper(t)
	t.Setenv(envSpawnHelper, "")
	cfg, _ := json.Marshal(map[string]any{"profile": "persistent", "tools": map[string]any{"bash": map[string]any{"spawnHelper": wrapper}}})
	c := &rpcClient{t: t, s: startServe(t)}
	if _, errMsg := c.call("initialize", map[string]any{"config": json.RawMessage(cfg)}); errMsg != "" {
		t.Fatalf("initialize: %s", errMsg)
	}
	assertHelperUsed(t, marker, c.bash(cttyProbe))
}

func TestSpawnHelperConfigBeatsEnvironment(t *testing.T) {
	wrapper, marker := buildHelper(t)
	t.Setenv(envSpawnHelper, filepath.Join(t.TempDir(), "missing"))
	cfg := `{"profile":"persistent","tools":{"bash":{"spawnHelper":` + string(mustJSON(t, wrapper)) + `}}}`
	c := &rpcClient{t: t, s: startServe(t, "--config", cfg)}
	assertHelperUsed(t, marker, c.bash(cttyProbe))
}

func TestSpawnHelperOverrideIsNeverDropped(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(t.TempDir(), "no-such-helper"), "does not exist"},
		{"not executable", notExec, "is not executable"},
		{"directory", t.TempDir(), "is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envSpawnHelper, tc.path)
			c := &rpcClient{t: t, s: startServe(t)}
			_, errMsg := c.call("initialize", map[string]any{"config": map[string]any{"profile": "persistent"}})
			if !strings.Contains(errMsg, strconv.Quote(tc.path)) || !strings.Contains(errMsg, tc.want) || !strings.Contains(errMsg, envSpawnHelper) {
				t.Fatalf("initialize answered %q; want an error naming %q, %q and %s", errMsg, tc.path, tc.want, envSpawnHelper)
			}
			// The failure sticks: later requests get it too, not a shell
			// spawned some other way.
			if _, errMsg := c.call("tools/list", nil); !strings.Contains(errMsg, tc.want) {
				t.Fatalf("tools/list answered %q after a failed initialize", errMsg)
			}
		})
	}
}

func TestCallCommandUsesSpawnHelper(t *testing.T) {
	wrapper, marker := buildHelper(t)
	t.Setenv(envSpawnHelper, wrapper)
	var out, errOut bytes.Buffer
	args, _ := json.Marshal(map[string]string{"command": cttyProbe})
	code := run([]string{"call", "--config", `{"profile":"persistent"}`, "--cwd", t.TempDir(), "bash", string(args)}, nil, &out, &errOut)
	if code != 0 {
		t.Fatalf("call: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	assertHelperUsed(t, marker, out.String())
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Issue 10: on Linux commands run only under the helper; with none beside
// the executable and no override, initialize fails and names where it
// looked and the variable that would fix it, and no command ever runs.
func TestMissingSpawnHelperFailsClosed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the helper is required on linux only")
	}
	t.Setenv(envSpawnHelper, "")
	for _, profile := range []string{"oneshot", "persistent"} {
		t.Run(profile, func(t *testing.T) {
			c := &rpcClient{t: t, s: startServe(t)}
			_, errMsg := c.call("initialize", map[string]any{"config": map[string]any{"profile": profile}})
			dir := filepath.Dir(os.Args[0])
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			for _, want := range []string{helperName + " is required on linux", envSpawnHelper, dir, "beside the executable"} {
				if !strings.Contains(errMsg, want) {
					t.Fatalf("initialize answered %q; want it to say %q", errMsg, want)
				}
			}
			if _, errMsg := c.call("tools/list", nil); !strings.Contains(errMsg, "is required") {
				t.Fatalf("tools/list answered %q after a failed initialize", errMsg)
			}
		})
	}
}
