// Package livecheck holds the live-output scenarios of issue 17 as
// functions of a carrier, so the same cases run against the core, the
// in-process connection the C ABI uses and `shellport serve`, each in both
// bash profiles (one-shot and persistent).
//
// Every bound here is a hang guard or a count, never a speed assertion:
// the rate bound counts notifications against the time the call took.
package livecheck

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/testkit/rpcclient"
	"github.com/shellport/shellport/internal/testkit/transcript"
	"github.com/shellport/shellport/internal/tools/output"
)

// Open starts a fresh runtime and returns a carrier to it; the runtime is
// closed when the test ends.
type Open func(t *testing.T) transcript.Carrier

// Profiles are the two bash profiles every scenario runs in.
var Profiles = []string{"oneshot", "persistent"}

// RunAll runs every scenario in both profiles as subtests.
func RunAll(t *testing.T, open Open) {
	for _, profile := range Profiles {
		t.Run(profile, func(t *testing.T) {
			t.Run("SlowLinesArriveBeforeTheReply", func(t *testing.T) { SlowLinesArriveBeforeTheReply(t, open, profile) })
			t.Run("NoStreamUnlessAsked", func(t *testing.T) { NoStreamUnlessAsked(t, open, profile) })
			t.Run("FloodIsCoalescedAndBounded", func(t *testing.T) { FloodIsCoalescedAndBounded(t, open, profile) })
			t.Run("CancellationStopsTheStream", func(t *testing.T) { CancellationStopsTheStream(t, open, profile) })
		})
	}
}

func start(t *testing.T, open Open, profile string) *rpcclient.Client {
	t.Helper()
	c := rpcclient.New(t, open(t))
	if r := c.Call("initialize", map[string]any{"config": map[string]any{"profile": profile}}); r.Error != nil {
		t.Fatalf("initialize: %s", r.Message())
	}
	if r := c.Call("session/new", map[string]any{"cwd": t.TempDir(), "id": "live"}); r.Error != nil {
		t.Fatalf("session/new: %s", r.Message())
	}
	return c
}

func call(profile, command string, stream bool) map[string]any {
	args := map[string]any{"command": command}
	if profile == "oneshot" {
		args["description"] = "live output test"
	}
	p := map[string]any{"session": "live", "name": "bash", "callId": "toolu_live", "arguments": args}
	if stream {
		p["stream"] = true
	}
	return p
}

// rawOutput is the output the result's presentation carries: the
// command's output as the model reads it, before the status lines.
func rawOutput(t *testing.T, r rpcclient.Reply) string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("tools/call: %s", r.Message())
	}
	var res struct {
		Meta struct {
			Presentation struct {
				RawOutput struct {
					Output string `json:"output"`
				} `json:"rawOutput"`
			} `json:"presentation"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res.Meta.Presentation.RawOutput.Output
}

func joined(pieces []rpcclient.Output) string {
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(p.Text)
	}
	return b.String()
}

// SlowLinesArriveBeforeTheReply: a command printing a line every 300 ms
// delivers its lines in pieces while it runs, all before the reply, and
// the pieces joined are the output the result holds.
func SlowLinesArriveBeforeTheReply(t *testing.T, open Open, profile string) {
	c := start(t, open, profile)
	id := c.Send("tools/call", call(profile, `for i in 1 2 3 4 5; do echo "line $i"; sleep 0.3; done; printf 'caf\xc3\xa9 \x1b[31mred\x1b[0m\n'`, true))
	r := c.Wait(id)
	want := rawOutput(t, r)
	pieces, replySeq := c.Outputs(id)
	if len(pieces) < 2 {
		t.Fatalf("%d pieces before the reply, want at least 2: %+v", len(pieces), pieces)
	}
	for _, p := range pieces {
		if p.Seq > replySeq {
			t.Errorf("piece %q came after the reply", p.Text)
		}
		if p.CallID != "toolu_live" || p.Session != "live" {
			t.Errorf("piece names call %q session %q", p.CallID, p.Session)
		}
	}
	if got := joined(pieces); got != want || !strings.Contains(got, "café") {
		t.Errorf("pieces joined:\n%q\nresult's output:\n%q", got, want)
	}
}

// NoStreamUnlessAsked: a call without stream gets no tools/output.
func NoStreamUnlessAsked(t *testing.T, open Open, profile string) {
	c := start(t, open, profile)
	id := c.Send("tools/call", call(profile, "echo quiet", false))
	r := c.Wait(id)
	if out := rawOutput(t, r); out != "quiet\n" {
		t.Errorf("output %q in %s", out, r.Raw)
	}
	if pieces, _ := c.Outputs(id); len(pieces) != 0 {
		t.Errorf("%d pieces for a call that asked for none", len(pieces))
	}
}

// FloodIsCoalescedAndBounded: a command printing megabytes as fast as it
// can is streamed in at most a few dozen pieces a second, and no more than
// output.StreamLimit bytes (plus our notes) in all; the stream says where
// it stopped.
func FloodIsCoalescedAndBounded(t *testing.T, open Open, profile string) {
	c := start(t, open, profile)
	began := time.Now()
	id := c.Send("tools/call", call(profile, "yes 'y flood line' | head -c 6000000; echo; echo done", true))
	r := c.Wait(id)
	took := time.Since(began)
	if r.Error != nil {
		t.Fatalf("tools/call: %s", r.Message())
	}
	pieces, replySeq := c.Outputs(id)
	// 1/StreamInterval pieces a second, plus the first and the last.
	if limit := int(took/output.StreamInterval) + 2; len(pieces) > limit {
		t.Errorf("%d pieces in %s, want at most %d", len(pieces), took, limit)
	}
	text := joined(pieces)
	if len(text) > output.StreamLimit+4096 {
		t.Errorf("streamed %d bytes, the limit is %d", len(text), output.StreamLimit)
	}
	if !strings.Contains(text, "[live output stops here") {
		t.Errorf("the stream does not say it stopped; it ends %q", text[max(0, len(text)-300):])
	}
	for _, p := range pieces {
		if p.Seq > replySeq {
			t.Errorf("a piece came after the reply")
		}
	}
}

// CancellationStopsTheStream: once a cancelled call's reply has come, no
// piece of it follows.
func CancellationStopsTheStream(t *testing.T, open Open, profile string) {
	c := start(t, open, profile)
	id := c.Send("tools/call", call(profile, "for i in $(seq 1 300); do echo tick $i; sleep 0.05; done", true))
	deadline := time.Now().Add(rpcclient.Wait)
	for {
		if pieces, _ := c.Outputs(id); len(pieces) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no piece arrived")
		}
		c.Drain(50 * time.Millisecond)
	}
	c.Notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
	r := c.Wait(id)
	if r.Error == nil || r.Code() != rpc.CodeRequestCancelled {
		t.Fatalf("reply to the cancelled call: %s", r.Raw)
	}
	c.Drain(time.Second) // pieces still on their way would arrive here
	pieces, replySeq := c.Outputs(id)
	for _, p := range pieces {
		if p.Seq > replySeq {
			t.Errorf("piece %q came after the cancellation's reply", p.Text)
		}
	}
	// The shell is usable afterwards, and its calls stream again.
	next := c.Send("tools/call", call(profile, "echo after", true))
	if out := rawOutput(t, c.Wait(next)); out != "after\n" {
		t.Errorf("next call's output %q", out)
	}
	if pieces, _ := c.Outputs(next); joined(pieces) != "after\n" {
		t.Errorf("next call's stream %q", joined(pieces))
	}
}
