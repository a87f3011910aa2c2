//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"
)

// Issue 10: whatever ends `shellport serve` or its host, every process its
// commands started dies with it, however it detached, and at once rather
// than at the calls' timeouts.

// hostedServe is `shellport serve` (built, with the helper beside it)
// running a long escaping command in flight.
type hostedServe struct {
	in  *os.File // the test's end of serve's stdin
	out *os.File // the test's end of serve's stdout
}

// send writes the requests that start marker's escapes in a new session.
func (h *hostedServe) start(t *testing.T, profile, marker string) {
	t.Helper()
	command := testkit.Escapes(marker) + "\nsleep " + marker
	args := map[string]any{"command": command}
	if profile == "oneshot" {
		args["description"] = "Escape"
		args["timeoutMs"] = 600000
	}
	a, _ := json.Marshal(args)
	fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"config":{"profile":%q}}}`+"\n", profile)
	fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"id":"s"}}`+"\n", t.TempDir())
	fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"session":"s","name":"bash","arguments":%s}}`+"\n", a)
	testkit.WaitProcs(t, marker, testkit.EscapeKinds+1)
}

// waitOutputEOF waits until every writer of serve's stdout is gone: serve
// has exited.
func (h *hostedServe) waitOutputEOF(t *testing.T) {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, bufio.NewReader(h.out)); done <- err }()
	select {
	case <-done:
	case <-time.After(testkit.ProcWait):
		t.Fatal("serve did not exit")
	}
}

// startHosted starts serve with stdin and stdout on pipes the test holds,
// through wrap (nil: directly). It returns the started command.
func startHosted(t *testing.T, wrap []string) (*hostedServe, *exec.Cmd) {
	t.Helper()
	exe := buildExecutable(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	argv := append(append([]string{}, wrap...), exe, "serve")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Env = append(os.Environ(), envSpawnHelper+"=") // the helper beside the executable
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = inR.Close()
	_ = outW.Close()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &hostedServe{in: inW, out: outR}, cmd
}

// SIGKILL of serve itself: its supervisors find their report pipes' read
// ends closed.
func TestIssue10EverythingDiesWithAKilledServe(t *testing.T) {
	for _, profile := range []string{"oneshot", "persistent"} {
		t.Run(profile, func(t *testing.T) {
			marker := testkit.Marker()
			t.Cleanup(func() { testkit.KillProcs(marker) })
			h, cmd := startHosted(t, nil)
			h.start(t, profile, marker)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			testkit.WaitNoProcs(t, marker, "after serve was killed with SIGKILL")
		})
	}
}

// SIGKILL of serve's parent (the host) while its stdin stays open: serve
// notices the parent's death and kills everything at once.
func TestIssue10ServeNoticesItsParentsDeath(t *testing.T) {
	for _, profile := range []string{"oneshot", "persistent"} {
		t.Run(profile, func(t *testing.T) {
			marker := testkit.Marker()
			t.Cleanup(func() { testkit.KillProcs(marker) })
			// sh waits for serve (a command follows), so it is serve's parent.
			h, host := startHosted(t, []string{"sh", "-c", `"$@"; exit 0`, "sh"})
			h.start(t, profile, marker)
			if err := host.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = host.Wait()
			testkit.WaitNoProcs(t, marker, "after serve's parent was killed")
			h.waitOutputEOF(t)
		})
	}
}

// End of input while nobody reads the output any more: serve stops the
// drain at once instead of waiting out the calls in flight.
func TestIssue10ServeStopsWhenNobodyReadsItsOutput(t *testing.T) {
	marker := testkit.Marker()
	t.Cleanup(func() { testkit.KillProcs(marker) })
	h, cmd := startHosted(t, nil)
	h.start(t, "oneshot", marker)
	_ = h.out.Close()
	_ = h.in.Close()
	testkit.WaitNoProcs(t, marker, "after the output's reader left and input ended")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(testkit.ProcWait):
		t.Fatal("serve did not exit")
	}
}

// End of input while the parent lives and reads: the calls in flight are
// answered first (`shellport serve < requests.jsonl`).
func TestServeDrainsAtEndOfInput(t *testing.T) {
	h, _ := startHosted(t, nil)
	fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"id":"s"}}`+"\n", t.TempDir())
	fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"session":"s","name":"bash","arguments":{"command":"sleep 1; echo drained","description":"Wait"}}}`+"\n")
	_ = h.in.Close()
	b, err := io.ReadAll(h.out)
	if err != nil || !strings.Contains(string(b), "drained") {
		t.Fatalf("output %q (%v), want the call's answer", b, err)
	}
}
