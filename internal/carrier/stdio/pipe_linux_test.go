//go:build linux

package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/testkit/rpcclient"
)

// hostPipes are stdin and stdout as a host hands them over: blocking pipes
// (Python's subprocess makes them so), the serve's ends wrapped as
// os.Stdin and os.Stdout are. The host's ends, descriptions of their own,
// are non-blocking here so that the test's reads can time out.
type hostPipes struct {
	serveIn, serveOut *os.File // the serve's ends
	hostIn, hostOut   *os.File // the host's: it writes hostIn, reads hostOut
	done              chan error
}

// hostPipe is a blocking pipe whose end hostEnd (0 read, 1 write) is then
// made non-blocking: the other end stays as a host hands it over.
func hostPipe(t *testing.T, hostEnd int) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fds[hostEnd], true); err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fds[0]), "pipe-r"), os.NewFile(uintptr(fds[1]), "pipe-w")
}

func serveOnHostPipes(t *testing.T, profile string) *hostPipes {
	t.Helper()
	h := &hostPipes{done: make(chan error, 1)}
	h.serveIn, h.hostIn = hostPipe(t, 1)
	h.hostOut, h.serveOut = hostPipe(t, 0)
	cfg, err := core.ParseConfig([]byte(`{"profile":"` + profile + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	opts := core.Options{Config: cfg, SpawnHelper: testkit.SpawnHelper(t)}
	go func() { h.done <- Serve(context.Background(), h.serveIn, h.serveOut, opts) }()
	t.Cleanup(func() {
		_ = h.hostIn.Close()
		select {
		case <-h.done:
		case <-time.After(rpcclient.Wait):
			t.Error("Serve did not return at end of input")
		}
		for _, f := range []*os.File{h.serveIn, h.serveOut, h.hostOut} {
			_ = f.Close()
		}
	})
	return h
}

// statusFlags is F_GETFL of f's open file description.
func statusFlags(t *testing.T, f *os.File) int {
	t.Helper()
	sc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	flags := -1
	if err := sc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return flags
}

// descriptorsOf counts this process's descriptors open on f's pipe.
func descriptorsOf(t *testing.T, f *os.File) int {
	t.Helper()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pipe:[%d]", st.Sys().(*syscall.Stat_t).Ino)
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == want {
			n++
		}
	}
	return n
}

// Issue 16: over pipes a host hands over, the serve reads and writes
// descriptors of its own (the same pipes, opened anew, in the Go poller),
// and the descriptions the host shares keep their flags: a host reading
// or writing them after, or beside, the serve still blocks as it expects.
func TestServeOverHostPipesUsesItsOwnDescriptions(t *testing.T) {
	h := serveOnHostPipes(t, "oneshot")
	before := [2]int{statusFlags(t, h.serveIn), statusFlags(t, h.serveOut)}
	c := rpcclient.New(t, &fileCarrier{in: h.hostIn, from: h.hostOut, out: bufio.NewReader(h.hostOut)})
	c.Call("initialize", map[string]any{})
	if got := c.Call("tools/call", map[string]any{"name": "bash", "arguments": map[string]any{"command": "echo hi"}}).Text(t); !strings.Contains(got, "hi") {
		t.Fatalf("bash: %q", got)
	}
	after := [2]int{statusFlags(t, h.serveIn), statusFlags(t, h.serveOut)}
	if after != before || after[0]&unix.O_NONBLOCK != 0 || after[1]&unix.O_NONBLOCK != 0 {
		t.Fatalf("the shared descriptions' flags changed: %#x, %#x before; %#x, %#x after", before[0], before[1], after[0], after[1])
	}
	// The test holds two descriptors of each pipe (its end and the
	// serve's); the serve's own description of its end is a third.
	if n := descriptorsOf(t, h.hostIn); n != 3 {
		t.Errorf("%d descriptors on stdin's pipe, want 3 (the serve's own among them)", n)
	}
	if n := descriptorsOf(t, h.hostOut); n != 3 {
		t.Errorf("%d descriptors on stdout's pipe, want 3 (the serve's own among them)", n)
	}
}

// Issue 16: a host that reads slowly holds the serve's writes back (a full
// pipe parks the writer in the poller), and every reply still arrives
// whole, each exactly once.
func TestServeOverHostPipesFullOutput(t *testing.T) {
	h := serveOnHostPipes(t, "oneshot")
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("some line of text to view\n", 3000)), 0o600); err != nil {
		t.Fatal(err)
	}
	const calls = 64
	var sent strings.Builder
	sent.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}` + "\n")
	for id := 1; id <= calls; id++ {
		fmt.Fprintf(&sent, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"str_replace_editor","arguments":{"command":"view","path":%q}}}`+"\n", id, big)
	}
	// Everything at once, nothing read: the replies (over a megabyte) fill
	// the pipe long before the requests are all answered.
	go func() { _, _ = io.WriteString(h.hostIn, sent.String()) }()
	time.Sleep(100 * time.Millisecond) // lets the serve run into the full pipe; no assert depends on it
	seen := map[int]bool{}
	out := bufio.NewReader(h.hostOut)
	if err := h.hostOut.SetReadDeadline(time.Now().Add(rpcclient.Wait)); err != nil {
		t.Fatal(err)
	}
	for len(seen) < calls+1 {
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d replies: %v", len(seen), err)
		}
		var reply struct {
			ID     int `json:"id"`
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &reply); err != nil || reply.Result == nil || reply.Result.IsError {
			t.Fatalf("reply %q: %v", line, err)
		}
		if seen[reply.ID] {
			t.Fatalf("two replies to %d", reply.ID)
		}
		seen[reply.ID] = true
	}
}

// fileCarrier is the host's side of serveOnHostPipes for rpcclient.
type fileCarrier struct {
	in   *os.File
	from *os.File
	out  *bufio.Reader // of from
}

func (c *fileCarrier) Send(msg []byte) error {
	_, err := c.in.Write(append(append([]byte(nil), msg...), '\n'))
	return err
}

func (c *fileCarrier) Recv(timeout time.Duration) ([]byte, error) {
	if err := c.from.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		if os.IsTimeout(err) {
			return nil, nil
		}
		return nil, err
	}
	return line[:len(line)-1], nil
}
