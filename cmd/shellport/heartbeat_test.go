package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit/rpcclient"
)

// Issue 15: --heartbeat takes a duration of at least 100ms; "0" is off.
func TestServeHeartbeatFlag(t *testing.T) {
	for _, c := range []struct {
		value, want string
	}{
		{"soon", `--heartbeat "soon" is not a duration such as 10s or 1m`},
		{"10", `--heartbeat "10" is not a duration such as 10s or 1m`},
		{"50ms", "--heartbeat 50ms is shorter than the shortest allowed, 100ms"},
		{"-5s", "--heartbeat -5s is shorter than the shortest allowed, 100ms"},
	} {
		var out, errOut bytes.Buffer
		code := run([]string{"serve", "--heartbeat", c.value}, strings.NewReader(""), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), c.want) || out.Len() != 0 {
			t.Errorf("--heartbeat %s: code %d, stderr %q, stdout %q", c.value, code, errOut.String(), out.String())
		}
	}
	for _, value := range []string{"0", "1m30s"} {
		var want string
		if value != "0" {
			want = `"heartbeatMs":90000`
		}
		s := startServe(t, "--heartbeat", value)
		c := rpcclient.New(t, s)
		r := c.Call("initialize", map[string]any{})
		if got := string(r.Result); want != "" && !strings.Contains(got, want) || want == "" && strings.Contains(got, "heartbeatMs") {
			t.Errorf("--heartbeat %s: initialize answered %s", value, got)
		}
	}
}

// Issue 15: the executable itself, its stdin held open by a client that
// stopped talking (what `kubectl exec -i` does when the harness is gone):
// it exits on its own after the heartbeat, having killed everything, and
// says why on stderr. While the client pings, it stays.
func TestServeHeartbeatEndsSilentClient(t *testing.T) {
	p := startProc(t, "--heartbeat", "1s", "--config", `{"profile":"persistent"}`)
	c := rpcclient.New(t, p)
	token := rpcclient.Token()
	stopPings := make(chan struct{})
	pinged := make(chan struct{})
	go func() {
		defer close(pinged)
		for {
			select {
			case <-stopPings:
				return
			case <-time.After(100 * time.Millisecond):
				_ = p.Send([]byte(`{"jsonrpc":"2.0","method":"$/ping"}`))
			}
		}
	}()
	c.Call("session/new", map[string]any{"cwd": "/", "id": "s", "env": map[string]string{"SP_TOKEN": token}})
	c.Call("tools/call", map[string]any{"session": "s", "name": "bash", "arguments": map[string]any{"command": "sleep 1000 &"}}).Text(t)
	// Three heartbeats long with pings only: still serving.
	time.Sleep(3 * time.Second)
	if got := c.Call("tools/call", map[string]any{"session": "s", "name": "bash", "arguments": map[string]any{"command": "echo still here"}}).Text(t); !strings.Contains(got, "still here") {
		t.Fatalf("after pings only: %q", got)
	}
	close(stopPings)
	<-pinged
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "no input from the client for") {
		t.Fatalf("stderr does not say why it exited:\n%s", p.stderr)
	}
	if n := rpcclient.CountProcs(t, token); n != 0 {
		t.Fatalf("%d processes outlived serve", n)
	}
}
