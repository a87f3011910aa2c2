package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shellport/shellport/internal/tools/output"
)

// bashProfiles runs a runtime per bash profile, with the same limits.
type bashProfiles struct {
	rts  map[string]*Runtime
	cols map[string]*collector
	dir  string
	n    atomic.Int64
}

func newBashProfiles(t *testing.T) *bashProfiles {
	t.Helper()
	b := &bashProfiles{rts: map[string]*Runtime{}, cols: map[string]*collector{}, dir: t.TempDir()}
	for _, p := range []string{ProfileOneshot, ProfilePersistent} {
		b.rts[p], b.cols[p] = startRuntime(t, fmt.Sprintf(`{"profile":%q,"tools":{"bash":{"timeoutMs":1000,"maxOutputChars":1000}}}`, p), b.dir)
	}
	return b
}

// call runs command with bash in profile and returns the MCP result.
func (b *bashProfiles) call(t *testing.T, profile, command string) CallResult {
	t.Helper()
	args := map[string]any{"command": command}
	if profile == ProfileOneshot {
		args["description"] = "Run a command for the dialect test"
	}
	raw, _ := json.Marshal(args)
	id := fmt.Sprintf(`"d%d"`, b.n.Add(1))
	b.rts[profile].Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"session":"s","name":"bash","arguments":%s}}`, id, raw)))
	var reply struct {
		Result *CallResult
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(b.cols[profile].wait(t, id)), &reply); err != nil || reply.Result == nil {
		t.Fatalf("%s %q: %v %+v", profile, command, err, reply.Error)
	}
	return *reply.Result
}

// Issue 11: the same situation reads the same in both bash profiles —
// empty output, a non-zero exit, invalid UTF-8, cut output, a timeout — and structuredContent has the same keys.
// The differences that are real (one-shot's [stderr] section, persistent's
// lines about its shell) are documented in docs/TOOLS.md.
func TestOneDialect(t *testing.T) {
	b := newBashProfiles(t)
	cut := regexp.MustCompile(`^1\n2\n(.|\n)*\n\[\.\.\. [0-9,]+ characters \([0-9,]+ lines\) left out \.\.\.\]\n(.|\n)*\n30000\n\[output truncated; full output: (/.*)\]$`)
	for _, s := range []struct {
		name, command string
		want          func(text string) bool
		meta          map[string]any
	}{
		{"empty output", "true", is("[no output]"), map[string]any{"exitCode": 0.0, "signal": nil, "truncated": false, "spillPath": nil}},
		{"output", "echo hello", is("hello\n"), map[string]any{"exitCode": 0.0}},
		{"no final newline", "printf hello", is("hello"), nil},
		{"non-zero exit", "echo hi; (exit 3)", is("hi\n[exit code: 3]"), map[string]any{"exitCode": 3.0, "signal": nil}},
		{"non-zero exit, empty", "(exit 4)", is("[exit code: 4]"), map[string]any{"exitCode": 4.0}},
		{"invalid UTF-8", `printf 'a\xffb\n'`, is("a\uFFFDb\n[1 byte of the output was not valid UTF-8 and was replaced with U+FFFD]"), map[string]any{"invalidUtf8": 1.0}},
		{"cut output", "seq 1 30000", cut.MatchString, map[string]any{"truncated": true}},
		{"timeout", "echo started; sleep 30", func(text string) bool {
			return strings.HasPrefix(text, "started\n[timed out after 1 second]\n")
		}, map[string]any{"timedOut": true, "waitingForInput": false}},
	} {
		texts := map[string]string{}
		for _, profile := range []string{ProfileOneshot, ProfilePersistent} {
			res := b.call(t, profile, s.command)
			text := res.Content[0].Text
			texts[profile] = text
			if !s.want(text) {
				t.Errorf("%s, %s: %q", s.name, profile, text)
			}
			if res.IsError {
				t.Errorf("%s, %s: isError", s.name, profile)
			}
			keys := make([]string, 0, len(res.StructuredContent))
			for k := range res.StructuredContent {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			want := slices.Clone(output.MetaKeys)
			sort.Strings(want)
			if !slices.Equal(keys, want) {
				t.Errorf("%s, %s: meta keys %v, want %v", s.name, profile, keys, want)
			}
			for k, v := range s.meta {
				if res.StructuredContent[k] != v {
					t.Errorf("%s, %s: %s = %v, want %v", s.name, profile, k, res.StructuredContent[k], v)
				}
			}
			if path, ok := res.StructuredContent["spillPath"].(string); ok {
				if m := cut.FindStringSubmatch(text); m == nil || m[3] != path {
					t.Errorf("%s, %s: spillPath %q is not the file the text names", s.name, profile, path)
				}
				if data, err := os.ReadFile(path); err != nil || !strings.HasSuffix(string(data), "\n29999\n30000\n") {
					t.Errorf("%s, %s: spill file: %v", s.name, profile, err)
				}
			}
			if profile == ProfileOneshot && res.StructuredContent["shellReset"] != false {
				t.Errorf("%s: one-shot reports a shell reset", s.name)
			}
			if p := presentation(t, res); !strings.HasPrefix(p, "```console\n"+text) {
				t.Errorf("%s, %s: the card does not fence the text: %q", s.name, profile, p)
			}
		}
		if s.name != "timeout" && s.name != "cut output" && texts[ProfileOneshot] != texts[ProfilePersistent] {
			t.Errorf("%s reads differently:\none-shot   %q\npersistent %q", s.name, texts[ProfileOneshot], texts[ProfilePersistent])
		}
	}
}

// Issue 11: what differs is what is real. A timeout stops one-shot's
// command (by a signal) and resets persistent's shell; a cancelled call's
// reset is told at the top of the next persistent result.
func TestOneDialectResets(t *testing.T) {
	b := newBashProfiles(t)
	one := b.call(t, ProfileOneshot, "sleep 30").Content[0].Text
	if one != "[timed out after 1 second]\n[killed by signal: SIGTERM]" {
		t.Errorf("one-shot timeout: %q", one)
	}
	res := b.call(t, ProfilePersistent, "sleep 30")
	if text := res.Content[0].Text; text != "[timed out after 1 second]\n[the command was stopped and the shell was reset: its working directory, variables, functions and background jobs are gone, and the next command starts in a fresh shell in "+b.dir+"]" {
		t.Errorf("persistent timeout: %q", text)
	}
	if res.StructuredContent["shellReset"] != true || res.StructuredContent["exitCode"] != nil {
		t.Errorf("persistent timeout: %v", res.StructuredContent)
	}

	// A cancelled persistent call: the next result opens with the reset.
	rt, col := b.rts[ProfilePersistent], b.cols[ProfilePersistent]
	started := filepath.Join(b.dir, "started")
	rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"session":"s","name":"bash","arguments":{"command":"cd /; touch %s; sleep 30"}}}`, started)))
	waitFile(t, started)
	rt.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"slow"}}`))
	col.wait(t, `"slow"`)
	res = b.call(t, ProfilePersistent, "true")
	want := "[the previous call was cancelled, which reset the shell; this command ran in a fresh shell in " + b.dir + ", without the earlier working directory, variables, functions or background jobs]\n[no output]"
	if text := res.Content[0].Text; text != want || res.StructuredContent["shellReset"] != true {
		t.Errorf("after a cancelled call: %q %v", text, res.StructuredContent)
	}
}

func is(want string) func(string) bool { return func(s string) bool { return s == want } }

// presentation returns the text of the last content block of the result's
// card.
func presentation(t *testing.T, res CallResult) string {
	t.Helper()
	raw, _ := json.Marshal(res.Meta["presentation"])
	var p struct {
		Content []struct {
			Content struct{ Text string }
		}
	}
	if err := json.Unmarshal(raw, &p); err != nil || len(p.Content) == 0 {
		t.Fatalf("presentation %s: %v", raw, err)
	}
	return p.Content[len(p.Content)-1].Content.Text
}
