package stdio

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/testkit/rpcclient"
)

// syncBuffer is a log both the watchdog and the test touch.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Issue 15: silence on the input ends the serve after the interval, and says why.
func TestHeartbeatSilenceCancels(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	var log syncBuffer
	start := time.Now()
	ctx, _, stop := watchHeartbeat(context.Background(), inR, 200*time.Millisecond, &log)
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(rpcclient.Wait):
		t.Fatal("the watchdog never fired on a silent input")
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Fatalf("fired after %v, before the interval", waited)
	}
	if got := log.String(); !strings.Contains(got, "no input from the client for") || !strings.Contains(got, "(--heartbeat 200ms): shutting down") {
		t.Fatalf("log: %q", got)
	}
}

// Issue 15: any bytes count as a sign of life; the watchdog fires only
// once they stop.
func TestHeartbeatInputKeepsAlive(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	const interval = 300 * time.Millisecond
	ctx, in, stop := watchHeartbeat(context.Background(), inR, interval, io.Discard)
	defer stop()
	go func() { _, _ = io.Copy(io.Discard, in) }()
	// Bytes every interval/6 for five intervals: never silent that long.
	for end := time.Now().Add(5 * interval); time.Now().Before(end); {
		if _, err := inW.Write([]byte("{}\n")); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatal("the watchdog fired while input kept arriving")
		case <-time.After(interval / 6):
		}
	}
	select {
	case <-ctx.Done():
	case <-time.After(rpcclient.Wait):
		t.Fatal("the watchdog never fired once the input went silent")
	}
}

// Without a heartbeat nothing is wrapped and nothing fires.
func TestHeartbeatOff(t *testing.T) {
	in := strings.NewReader("")
	ctx, got, stop := watchHeartbeat(context.Background(), in, 0, io.Discard)
	defer stop()
	if got != io.Reader(in) || ctx.Done() != nil {
		t.Fatal("a zero interval must leave the reader and the context alone")
	}
}

// Issue 15: a channel that never delivers end of input (kubectl exec -i) —
// Serve with a heartbeat still ends when the client goes quiet, and kills
// every process the runtime started on the way out.
func TestServeHeartbeatKillsEverything(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close() // only after the test: the input never ends on its own
	outR, outW := io.Pipe()
	lines := make(chan []byte, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	var log syncBuffer
	done := make(chan error, 1)
	cfg, err := core.ParseConfig([]byte(`{"profile":"persistent"}`))
	if err != nil {
		t.Fatal(err)
	}
	opts := core.Options{Config: cfg, Log: &log, Heartbeat: 500 * time.Millisecond, SpawnHelper: testkit.SpawnHelper(t)}
	go func() {
		done <- Serve(context.Background(), inR, outW, opts)
		_ = outW.Close()
	}()

	carrier := &pipeCarrier{in: inW, lines: lines}
	c := rpcclient.New(t, carrier)
	// Pings while the test works, as the Python client sends them: a slow
	// shell start under load must not look like silence.
	quiet := make(chan struct{})
	go func() {
		for {
			select {
			case <-quiet:
				return
			case <-time.After(100 * time.Millisecond):
				_ = carrier.Send([]byte(`{"jsonrpc":"2.0","method":"$/ping"}`))
			}
		}
	}()
	init := c.Call("initialize", map[string]any{})
	if !strings.Contains(string(init.Result), `"heartbeatMs":500`) {
		t.Fatalf("initialize does not report the heartbeat: %s", init.Raw)
	}
	token := rpcclient.Token()
	c.Call("session/new", map[string]any{"cwd": "/", "id": "s", "env": map[string]string{"SP_TOKEN": token}})
	c.Call("tools/call", map[string]any{"session": "s", "name": "bash", "arguments": map[string]any{"command": "sleep 1000 &"}}).Text(t)
	if rpcclient.CountProcs(t, token) == 0 {
		t.Fatal("the session's processes are not running")
	}
	// The client goes quiet without closing anything.
	close(quiet)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(rpcclient.Wait):
		t.Fatal("Serve did not end after the client went quiet")
	}
	if n := rpcclient.CountProcs(t, token); n != 0 {
		t.Fatalf("%d processes outlived the serve", n)
	}
	if !strings.Contains(log.String(), "no input from the client") {
		t.Fatalf("log: %q", log.String())
	}
}

// pipeCarrier is the client side of an in-process Serve.
type pipeCarrier struct {
	in    io.Writer
	lines chan []byte
}

func (p *pipeCarrier) Send(msg []byte) error {
	_, err := p.in.Write(append(append([]byte(nil), msg...), '\n'))
	return err
}

func (p *pipeCarrier) Recv(timeout time.Duration) ([]byte, error) {
	select {
	case line, ok := <-p.lines:
		if !ok {
			return nil, io.EOF
		}
		return line, nil
	case <-time.After(timeout):
		return nil, nil
	}
}
