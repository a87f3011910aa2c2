package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit/rpcclient"
)

// The stress test of issue 10's bar: sessions opened and closed while calls
// are queued, close/new/call pipelined with reused ids. Nothing of one
// generation of an id — a variable, an open file, a background task — is
// visible to the next, and after each close answers no process of the
// closed generation is alive. The bounds are counts of sessions, never
// durations.
const (
	stressIDs         = 20
	stressGenerations = 10 // stressIDs × stressGenerations = 200 sessions per profile
)

func TestStressSessionsPersistent(t *testing.T) {
	t.Parallel()
	c := rpcclient.New(t, openCore(t))
	if r := c.Call("initialize", map[string]any{"config": map[string]any{"profile": "persistent"}}); r.Error != nil {
		t.Fatal(r.Message())
	}
	dir := t.TempDir()
	base := rpcclient.Token()
	type pending struct{ first, set, queued string }
	last := map[int]pending{}
	for g := 0; g < stressGenerations; g++ {
		closes := map[int]string{}
		for i := 0; i < stressIDs; i++ {
			id := fmt.Sprintf("st%d", i)
			if g > 0 {
				closes[i] = c.Send("session/close", map[string]any{"session": id})
			}
			c.Send("session/new", map[string]any{"cwd": dir, "id": id, "env": map[string]string{"SP_TOKEN": fmt.Sprintf("%s-%d-%d", base, i, g), "GEN": fmt.Sprint(g)}})
			p := pending{
				// What the new generation sees of the old one: nothing.
				first: c.Send("tools/call", call(id, `echo "gen=$GEN secret=[$SECRET] fd7=$([ -e /proc/$$/fd/7 ] && echo open || echo none)"`)),
				// State the next generation must not see, and a job that must die.
				set: c.Send("tools/call", call(id, fmt.Sprintf(`export SECRET=s%d-%d; exec 7>"$(mktemp)"; sleep 300 &`, i, g))),
				// Queued when the next close arrives (or run; either is fine).
				queued: c.Send("tools/call", call(id, "sleep 0.05")),
			}
			last[i] = p
		}
		for i := 0; i < stressIDs; i++ {
			if g > 0 {
				if r := c.Wait(closes[i]); r.Error != nil {
					t.Fatalf("gen %d id %d: close: %s", g, i, r.Message())
				}
				if n := rpcclient.CountProcs(t, fmt.Sprintf("%s-%d-%d\x00", base, i, g-1)); n != 0 {
					t.Fatalf("gen %d id %d: %d processes of the closed generation are alive after its close answered", g, i, n)
				}
			}
			got := c.Wait(last[i].first).Text(t)
			if want := fmt.Sprintf("gen=%d secret=[] fd7=none", g); !strings.Contains(got, want) {
				t.Fatalf("gen %d id %d: the new session saw the old one's state: %q (want %q)", g, i, got, want)
			}
		}
	}
	for i := 0; i < stressIDs; i++ {
		if r := c.Call("session/close", map[string]any{"session": fmt.Sprintf("st%d", i)}); r.Error != nil {
			t.Fatal(r.Message())
		}
	}
	if n := rpcclient.CountProcs(t, base); n != 0 {
		t.Fatalf("%d processes left after every session closed", n)
	}
}

func TestStressSessionsOneshot(t *testing.T) {
	t.Parallel()
	c := rpcclient.New(t, openCore(t))
	if r := c.Call("initialize", map[string]any{"config": map[string]any{"tools": map[string]any{"bash": map[string]any{"maxTasks": 64}}}}); r.Error != nil {
		t.Fatal(r.Message())
	}
	dir := t.TempDir()
	base := rpcclient.Token()
	tasks := map[int]string{} // the task id each id's last generation started
	for g := 0; g < stressGenerations; g++ {
		type sent struct{ close, peek, start, fg string }
		ids := map[int]sent{}
		for i := 0; i < stressIDs; i++ {
			id := fmt.Sprintf("st%d", i)
			var s sent
			if g > 0 {
				s.close = c.Send("session/close", map[string]any{"session": id})
			}
			c.Send("session/new", map[string]any{"cwd": dir, "id": id, "env": map[string]string{"SP_TOKEN": fmt.Sprintf("%s-%d-%d", base, i, g)}})
			if old := tasks[i]; old != "" {
				s.peek = c.Send("tools/call", map[string]any{"session": id, "name": "bash_output", "arguments": map[string]any{"task_id": old}})
			}
			s.start = c.Send("tools/call", oneshotCall(id, fmt.Sprintf("echo SECRET-%d-%d; sleep 300", i, g), true))
			s.fg = c.Send("tools/call", oneshotCall(id, "sleep 300", false)) // still running at the next close
			ids[i] = s
		}
		for i := 0; i < stressIDs; i++ {
			s := ids[i]
			if g > 0 {
				if r := c.Wait(s.close); r.Error != nil {
					t.Fatalf("gen %d id %d: close: %s", g, i, r.Message())
				}
				if n := rpcclient.CountProcs(t, fmt.Sprintf("%s-%d-%d\x00", base, i, g-1)); n != 0 {
					t.Fatalf("gen %d id %d: %d processes of the closed generation are alive after its close answered", g, i, n)
				}
			}
			if s.peek != "" {
				if got := c.Wait(s.peek).Text(t); strings.Contains(got, "SECRET") || !strings.Contains(got, "belongs to another session") {
					t.Fatalf("gen %d id %d: the old generation's task is reachable: %q", g, i, got)
				}
			}
			started := c.Wait(s.start).Text(t)
			_, rest, _ := strings.Cut(started, "Started background task ")
			task, _, _ := strings.Cut(rest, ".")
			if task == "" {
				t.Fatalf("gen %d id %d: no task started: %q", g, i, started)
			}
			tasks[i] = task
		}
	}
	for i := 0; i < stressIDs; i++ {
		if r := c.Call("session/close", map[string]any{"session": fmt.Sprintf("st%d", i)}); r.Error != nil {
			t.Fatal(r.Message())
		}
	}
	if n := rpcclient.CountProcs(t, base); n != 0 {
		t.Fatalf("%d processes left after every session closed", n)
	}
}

func call(session, command string) map[string]any {
	return map[string]any{"session": session, "name": "bash", "arguments": map[string]any{"command": command}}
}

func oneshotCall(session, command string, background bool) map[string]any {
	args := map[string]any{"command": command, "description": "stress"}
	if background {
		args["run_in_background"] = true
	}
	return map[string]any{"session": session, "name": "bash", "arguments": args}
}
