package persistent

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// Issue 3: cwd, variables, functions, aliases, virtualenvs and background
// jobs persist across calls.
func TestStatePersists(t *testing.T) {
	f := newFixture(t, Config{})
	venv := filepath.Join(f.cwd, "venv")
	if err := os.MkdirAll(filepath.Join(venv, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	activate := "export VIRTUAL_ENV=" + venv + "\nexport PATH=\"$VIRTUAL_ENV/bin:$PATH\"\ndeactivate() { unset VIRTUAL_ENV; }\n"
	if err := os.WriteFile(filepath.Join(venv, "bin", "activate"), []byte(activate), 0o644); err != nil {
		t.Fatal(err)
	}
	f.expect("mkdir sub && cd sub", "[no output]")
	f.expect("x=41; export Y=exported; greet() { echo \"hi $1\"; }; alias ll='echo aliased'", "[no output]")
	f.expect("source ../venv/bin/activate", "[no output]")
	f.expect("sleep 300 & echo started", "started\n")
	f.expect("basename \"$PWD\"; echo $((x+1)) $Y; greet you; ll; echo $VIRTUAL_ENV; type -t deactivate", "sub\n42 exported\nhi you\naliased\n"+venv+"\nfunction\n")
	res := f.run("jobs")
	if !strings.Contains(res.Text, "sleep 300") {
		t.Fatalf("background job lost: %q", res.Text)
	}
}

// Issue 3: the command never passes through the line discipline; script
// syntax behaves as in a script.
func TestScriptSemantics(t *testing.T) {
	f := newFixture(t, Config{})
	long := strings.Repeat("x", 10000)
	cases := []struct{ name, command, want string }{
		{"heredoc", "cat <<'EOF'\nline one\n  $HOME stays\nEOF\necho after", "line one\n  $HOME stays\nafter\n"},
		{"heredoc tabs", "cat <<-EOF\n\tindented\n\tEOF", "indented\n"},
		{"trailing ampersand", "echo fg; true &", "fg\n"},
		{"trailing comment", "echo visible # echo hidden", "visible\n"},
		{"bang", "echo 'wow!' \"a!b\"; ! false && echo negated", "wow! a!b\nnegated\n"},
		{"tab", "printf 'a\\tb\\n'", "a\tb\n"},
		{"literal tab in command", "echo \"x\ty\"", "x\ty\n"},
		{"long line", "echo " + long, long + "\n"},
		{"no final newline", "printf 'no newline'", "no newline"},
		{"multi line", "for i in 1 2\ndo\n  echo $i\ndone", "1\n2\n"},
		{"return at top level", "return 2>/dev/null; echo still-here", "still-here\n"},
		{"stdin is the terminal", "test -t 0 && test -t 1 && tty >/dev/null && echo tty", "tty\n"},
		{"no pager or colour", "echo $PAGER $GIT_PAGER $TERM $NO_COLOR $GIT_TERMINAL_PROMPT", "cat cat dumb 1 0\n"},
		{"history expansion off", "echo !!", "!!\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := *f
			sub.t = t
			sub.expect(c.command, c.want)
		})
	}
}

// Issue 3: a syntax error returns at once with bash's message, and the
// shell (and its state) survives.
func TestUnbalancedQuoteReturnsWithSyntaxError(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("kept=yes", "[no output]")
	res := f.run(`echo "unbalanced`)
	if !strings.Contains(res.Text, "unexpected EOF while looking for matching") || !strings.HasSuffix(res.Text, "[exit code: 2]") {
		t.Fatalf("want bash's syntax error and exit code 2, got %q", res.Text)
	}
	if structured(t, res, "shellReset") != false || structured(t, res, "timedOut") != false {
		t.Fatalf("a syntax error must not reset the shell: %v", res.Structured)
	}
	res = f.run("echo $kept; echo `")
	if !strings.Contains(res.Text, "unexpected EOF") || structured(t, res, "shellReset") != false {
		t.Fatalf("unbalanced backtick: %q %v", res.Text, res.Structured)
	}
	f.expect("echo $kept", "yes\n")
}

func TestExitCodeMarker(t *testing.T) {
	f := newFixture(t, Config{})
	res := f.expect("echo out; false", "out\n[exit code: 1]")
	if structured(t, res, "exitCode") != 1 {
		t.Fatalf("exitCode %v", res.Structured["exitCode"])
	}
	f.expect("printf partial; (exit 7)", "partial\n[exit code: 7]")
	res = f.expect("true", "[no output]")
	if structured(t, res, "exitCode") != 0 || structured(t, res, "signal") != nil {
		t.Fatalf("structured %v", res.Structured)
	}
}

// Issue 3: if the shell dies the result says how, and the next call gets a
// fresh shell in the session cwd.
func TestShellDeath(t *testing.T) {
	f := newFixture(t, Config{})
	reset := "working directory, variables, functions and background jobs are gone, and the next command starts in a fresh shell in " + f.cwd + "]"
	cases := []struct {
		command, marker string
		code            any
		signal          any
	}{
		{"echo bye; exit 3", "[exit code: 3]\n[the shell exited, so it was reset: its ", 3, nil},
		{"set -e; false; echo not-reached", "[exit code: 1]\n[the shell exited, so it was reset: its ", 1, nil},
		{"kill -9 $$", "[killed by signal: SIGKILL]\n[the shell was killed, so it was reset: its ", nil, "SIGKILL"},
	}
	for _, c := range cases {
		f.expect("cd /; lost=1", "[no output]")
		res := f.run(c.command)
		want := c.marker + reset
		if strings.HasPrefix(c.command, "echo bye") {
			want = "bye\n" + want
		}
		if res.Text != want {
			t.Fatalf("%q:\n got %q\nwant %q", c.command, res.Text, want)
		}
		if structured(t, res, "exitCode") != c.code || structured(t, res, "signal") != c.signal || structured(t, res, "shellReset") != true {
			t.Fatalf("%q: structured %v", c.command, res.Structured)
		}
		f.expect("echo \"[$lost]\"; pwd", "[]\n"+f.cwd+"\n")
	}
}

// A shell killed between calls is reported by the next call, which runs in
// a fresh shell.
func TestShellDeathBetweenCalls(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("x=1", "[no output]")
	sh := f.shellOf("s")
	if err := sh.proc.SignalForeground(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-sh.proc.Done()
	res := f.run("echo \"x=$x\"")
	if !strings.HasPrefix(res.Text, "[the previous shell ended between calls (killed by signal: SIGKILL)") || !strings.HasSuffix(res.Text, "\nx=\n") {
		t.Fatalf("got %q", res.Text)
	}
}

// Issue 3: no "[1]+ Done" (or any job notice) leaks into the next call.
func TestBackgroundJobLeavesNextCallClean(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("sleep 0.2 &", "[no output]")
	f.expect("sleep 0.4; echo next", "next\n")
	f.expect("echo clean", "clean\n")
}

// Output a background job prints between calls is shown with the next call.
func TestBackgroundOutputBetweenCalls(t *testing.T) {
	f := newFixture(t, Config{})
	fifo := filepath.Join(f.cwd, "go")
	f.expect("mkfifo "+fifo+"; (read -r _ <"+fifo+"; echo from-background) &", "[no output]")
	res := f.run("echo go >" + fifo + "; wait; echo done")
	if res.Text != "from-background\ndone\n" {
		t.Fatalf("got %q", res.Text)
	}
}

// Options a command leaves on must not break the driver loop or leak its
// workings into the output.
func TestHostileShellOptions(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("set -u; set -o pipefail; IFS=,; trap 'echo ERR-TRAP' ERR", "[no output]")
	f.expect("echo still", "still\n")
	f.expect("read() { echo fake; }; printf() { echo fake; }; eval() { echo fake; }", "[no output]")
	f.expect("echo works", "works\n")
	f.expect("unset -f read printf eval; IFS=$' \\t\\n'; trap - ERR; set +u +o pipefail", "[no output]")
	f.expect("set -x", "[no output]")
	res := f.run("echo traced")
	if res.Text != "++ echo traced\ntraced\n" {
		t.Fatalf("xtrace must show the command only, got %q", res.Text)
	}
	f.expect("set +x; echo untraced", "++ set +x\nuntraced\n")
	f.expect("echo quiet", "quiet\n")
	f.expect("exec >/dev/null 2>&1", "[no output]")
	f.expect("echo hidden; exec >/dev/tty 2>&1; echo shown", "shown\n")
	f.expect("set -e", "[no output]")
	f.expect("echo survives set -e", "survives set -e\n")
}

func TestInvalidArguments(t *testing.T) {
	f := newFixture(t, Config{})
	for raw, want := range map[string]string{
		`{}`:                     `"command" is required`,
		`{"command": "  "}`:      `"command" is empty`,
		`{"command": 3}`:         `"command" must be a string`,
		`{"command": "a\u0000"}`: `NUL`,
		`{"cmd": "ls"}`:          `unknown argument "cmd"`,
	} {
		res, err := f.tool.Call(t.Context(), &tools.Call{Session: tools.Session{ID: "s", Key: "s", Cwd: f.cwd}, Arguments: []byte(raw)})
		if err != nil || !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%s: got %+v, %v; want an error result with %q", raw, res, err, want)
		}
	}
	if sh := f.shellOf("s"); sh != nil {
		t.Error("invalid arguments started a shell")
	}
}

func TestDescriptionAndSchema(t *testing.T) {
	tool := New(tools.Host{}, Config{TimeoutMs: 90000})
	if tool.Name() != "bash" {
		t.Fatalf("name %q", tool.Name())
	}
	d := tool.Description()
	for _, want := range []string{"90 seconds", "working directory", "background jobs", "fresh one"} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q:\n%s", want, d)
		}
	}
	for _, banned := range []string{"network", "internet"} {
		if strings.Contains(strings.ToLower(d), banned) {
			t.Errorf("description mentions %q", banned)
		}
	}
	if s := string(tool.InputSchema()); !strings.Contains(s, `"required":["command"]`) || !strings.Contains(s, `"additionalProperties":false`) {
		t.Errorf("schema %s", s)
	}
}

// TMOUT set by a command must not time out the loop's wait for the next
// call (bash's read uses it as a default timeout). An idle second passes;
// a broken loop would exit in it.
func TestTMOUTDoesNotEndIdleShell(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("TMOUT=1", "[no output]")
	sh := f.shellOf("s")
	select {
	case <-sh.proc.Done():
		t.Fatalf("the shell ended while idle with TMOUT=1: %v", sh.status())
	case <-time.After(1500 * time.Millisecond):
	}
	f.expect("echo alive", "alive\n")
}
