// Package transcript replays the JSON-RPC transcripts in testdata/rpc against
// any carrier, so the C ABI path, the stdio executable and the Python package
// are held to the same cases.
//
// A transcript is JSON lines. {"send": MSG} sends a message. {"expect": MSG}
// waits for the reply whose id matches MSG's id (or, for a notification, the
// next one with MSG's method) and checks it contains MSG: objects match when
// every expected member matches, arrays element by element with equal length,
// strings exactly or, written "re:PATTERN", by regular expression; "<any>"
// matches any value, present or not. Replies may arrive in any order.
// Lines starting with # are comments.
//
// Every request gets exactly one reply: a reply to an id already matched
// (a duplicate) or to no expect line (an extra) fails the run. At the end
// the runner sends EndProbe, a $/cancelRequest request that every runtime
// answers at once, and reads until its reply, so replies still on their way
// are checked too.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Carrier is one way to reach a runtime.
type Carrier interface {
	Send(msg []byte) error
	// Recv returns the next message, or nil after timeout.
	Recv(timeout time.Duration) ([]byte, error)
}

// Step is one line of a transcript.
type Step struct {
	Line   int
	Send   json.RawMessage `json:"send,omitempty"`
	Expect json.RawMessage `json:"expect,omitempty"`
}

// Load reads a transcript file.
func Load(path string) ([]Step, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var steps []Step
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 32<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var st Step
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&st); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if (st.Send == nil) == (st.Expect == nil) {
			return nil, fmt.Errorf("%s:%d: want exactly one of send or expect", path, n)
		}
		st.Line = n
		steps = append(steps, st)
	}
	return steps, sc.Err()
}

// EndProbe is the request the runner sends after a transcript's last step.
const EndProbe = `{"jsonrpc":"2.0","id":"transcript-end","method":"$/cancelRequest","params":{"id":"transcript-none"}}`

// Run plays steps against c. It returns the first mismatch, duplicate or
// extra reply.
func Run(c Carrier, steps []Step, timeout time.Duration) error {
	r := &runner{c: c, timeout: timeout, matched: map[string]bool{}}
	for _, st := range steps {
		if st.Send != nil {
			if err := c.Send(st.Send); err != nil {
				return fmt.Errorf("line %d: send: %w", st.Line, err)
			}
			continue
		}
		var want map[string]any
		if err := json.Unmarshal(st.Expect, &want); err != nil {
			return fmt.Errorf("line %d: expect: %w", st.Line, err)
		}
		got, err := r.await(func(m map[string]any) bool { return same(want, m) })
		if err != nil {
			return fmt.Errorf("line %d: waiting for %s: %w", st.Line, key(want), err)
		}
		if id, isReply := want["id"]; isReply && id != nil {
			r.matched[fmt.Sprint(id)] = true
		}
		if path, ok := match(want, got, "$"); !ok {
			g, _ := json.Marshal(got)
			return fmt.Errorf("line %d: mismatch at %s\n  want %s\n  got  %s", st.Line, path, st.Expect, clip(string(g), 2000))
		}
	}
	return r.end()
}

type runner struct {
	c       Carrier
	timeout time.Duration
	pending []map[string]any
	matched map[string]bool // ids whose reply an expect line consumed
}

// await finds the message accept picks among pending ones, else reads until
// it arrives; other messages stay pending. A reply to an id already matched
// is a duplicate.
func (r *runner) await(accept func(map[string]any) bool) (map[string]any, error) {
	deadline := time.Now().Add(r.timeout)
	for {
		for i, m := range r.pending {
			if accept(m) {
				r.pending = append(r.pending[:i:i], r.pending[i+1:]...)
				return m, nil
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("timed out; unmatched: %s", keys(r.pending))
		}
		msg, err := r.c.Recv(left)
		if err != nil {
			return nil, fmt.Errorf("recv: %w", err)
		}
		if msg == nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(msg, &m); err != nil {
			return nil, fmt.Errorf("carrier sent invalid JSON %q: %w", clip(string(msg), 200), err)
		}
		if id, isReply := replyID(m); isReply && r.matched[id] {
			return nil, fmt.Errorf("request %s was answered twice; the second reply: %s", id, clip(string(msg), 500))
		}
		r.pending = append(r.pending, m)
	}
}

// end sends EndProbe and reads until its reply: every reply that arrived
// meanwhile, or was never expected, is an extra. A carrier that closed (the
// transcript ended with exit) has nothing more to say.
func (r *runner) end() error {
	if err := r.c.Send([]byte(EndProbe)); err != nil {
		return r.extras()
	}
	if _, err := r.await(func(m map[string]any) bool {
		id, isReply := replyID(m)
		return isReply && id == "transcript-end"
	}); err != nil && !strings.Contains(err.Error(), "recv:") {
		return fmt.Errorf("end of transcript: %w", err)
	}
	return r.extras()
}

func (r *runner) extras() error {
	for _, m := range r.pending {
		if _, isReply := replyID(m); isReply {
			g, _ := json.Marshal(m)
			return fmt.Errorf("a reply no expect line asked for: %s", clip(string(g), 500))
		}
	}
	return nil
}

// replyID returns the id of a reply (a message without a method).
func replyID(m map[string]any) (string, bool) {
	if m["method"] != nil {
		return "", false
	}
	id, ok := m["id"]
	if !ok {
		return "", false
	}
	return fmt.Sprint(id), true
}

// same reports whether m is the message want describes: the same id for a
// reply, the same method for a notification.
func same(want, m map[string]any) bool {
	if id, ok := want["id"]; ok {
		mid, ok := m["id"]
		return ok && fmt.Sprint(id) == fmt.Sprint(mid) && m["method"] == nil
	}
	return want["method"] != nil && want["method"] == m["method"]
}

func key(m map[string]any) string {
	if id, ok := m["id"]; ok {
		return fmt.Sprintf("reply to id %v", id)
	}
	return fmt.Sprintf("notification %v", m["method"])
}

func keys(ms []map[string]any) string {
	var out []string
	for _, m := range ms {
		out = append(out, key(m))
	}
	sort.Strings(out)
	return "[" + strings.Join(out, ", ") + "]"
}

func match(want, got any, path string) (string, bool) {
	if s, ok := want.(string); ok {
		if s == "<any>" {
			return "", true
		}
		if pattern, ok := strings.CutPrefix(s, "re:"); ok {
			g, isStr := got.(string)
			if !isStr || !regexp.MustCompile(pattern).MatchString(g) {
				return path, false
			}
			return "", true
		}
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present && wv != "<any>" {
				return path + "." + k + " (missing)", false
			}
			if p, ok := match(wv, gv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path + " (length)", false
		}
		for i := range w {
			if p, ok := match(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) {
			return path, false
		}
		return "", true
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
