package bash_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/bash"
)

// probe prints what a command can learn about how it was run: $0, $? at
// the start, its line numbers, bash's messages with their
// line numbers, and (last) that set -e ends it. Its output is compared
// between the command passed as bash's -c argument and the same command
// made long enough to go through a descriptor.
const probe = `echo "0=$0 status=$? line=$LINENO"
no-such-command-shellport
cat <<EOF
here $((1+2)) $LINENO
EOF
echo "after heredoc line=$LINENO"
f() { echo "in f line=$LINENO"; }; f
set -e
false
echo "not reached"`

// Issue 10, exact inputs: a one-shot command of any size up to the message
// limit runs (it failed with "argument list too long" past 128 KiB), and a
// long one behaves as the same command passed as bash's -c argument.
func TestIssue10LongCommandRunsLikeAShortOne(t *testing.T) {
	k := newKit(t, bash.Config{MaxOutputChars: 100000})
	s := session("a", t.TempDir())
	short := run(t, k, s, probe)
	// A comment line pads the command past the argument limit without
	// changing what it does or its line numbers.
	padded := probe + "\n#" + strings.Repeat("x", 200<<10)
	long := run(t, k, s, padded)
	if short.Text != long.Text {
		t.Fatalf("a long command ran differently:\nshort %q\nlong  %q", short.Text, long.Text)
	}
	for _, want := range []string{"0=bash status=0 line=1\n", "bash: line 2: no-such-command-shellport: command not found", "here 3 3\n", "after heredoc line=6\n", "in f line=7\n", "[exit code: 1]"} {
		if !strings.Contains(short.Text, want) {
			t.Errorf("output lacks %q:\n%s", want, short.Text)
		}
	}
	if strings.Contains(short.Text, "not reached") {
		t.Errorf("set -e did not stop the command:\n%s", short.Text)
	}
}

// The long command sees its exact text: a trailing comment without a final
// newline, a heredoc at the very end, a trailing backslash-newline, and
// BASH_EXECUTION_STRING holding exactly the command, as under bash -c; and
// no descriptor beyond 0-2 reaches what it runs.
func TestIssue10LongCommandIsExact(t *testing.T) {
	k := newKit(t, bash.Config{MaxOutputChars: 100000})
	s := session("a", t.TempDir())
	pad := "#" + strings.Repeat("y", 130<<10) + "\n"
	for _, tc := range []struct{ name, tail, want string }{
		{"no final newline", `echo end`, "end\n"},
		{"trailing comment", "echo end # a comment", "end\n"},
		{"trailing backslash newline", "echo end \\\n", "end\n"},
		{"heredoc at the end", "cat <<'EOF'\n$notexpanded\n\nEOF", "$notexpanded\n\n"},
		{"unterminated heredoc", "cat <<EOF\nbody\n\n", "body\n\n"},
		{"length", `echo "${#BASH_EXECUTION_STRING}"`, ""},
		{"descriptors", `ls -l /proc/self/fd`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			command := pad + tc.tail
			res := run(t, k, s, command)
			want := tc.want
			switch tc.name {
			case "length":
				want = fmt.Sprintf("%d\n", len(command))
			case "descriptors":
				if got := inheritedFds(res.Text); got != "0 1 2" {
					t.Fatalf("a process of the command has fds %q, want 0 1 2:\n%s", got, res.Text)
				}
				return
			}
			// An unterminated heredoc draws bash's warning on stderr.
			if got, _, _ := strings.Cut(res.Text, "[stderr]"); got != want && res.Text != want {
				t.Fatalf("got %q, want %q", res.Text, want)
			}
		})
	}
}

// A 1 MiB command runs, as the issue asks.
func TestIssue10OneMebibyteCommand(t *testing.T) {
	k := newKit(t, bash.Config{})
	var b strings.Builder
	for b.Len() < 1<<20 {
		fmt.Fprintf(&b, "x%d=%s\n", b.Len(), strings.Repeat("z", 60))
	}
	b.WriteString(`echo "lines=$LINENO"`)
	res := run(t, k, session("a", t.TempDir()), b.String())
	want := fmt.Sprintf("lines=%d\n", strings.Count(b.String(), "\n")+1)
	if res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
}

// A command under the argument limit whose environment fills the rest of
// the kernel's budget for arguments and environment together is retried
// through a descriptor instead of failing with "argument list too long".
func TestIssue10HugeEnvironmentFallsBackToDescriptor(t *testing.T) {
	// Linux takes arguments and environment together up to a quarter of
	// the stack limit, at most 6 MiB.
	var stack syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &stack); err != nil {
		t.Fatal(err)
	}
	budget := min(stack.Cur/4, 6<<20)
	env := map[string]string{}
	for left, i := budget-(100<<10), 0; left > 0; i++ {
		n := min(left, 60<<10)
		env[fmt.Sprintf("SHELLPORT_BIG_%d", i)] = strings.Repeat("e", int(n))
		left -= n
	}
	k := newKit(t, bash.Config{})
	s := tools.Session{ID: "a", Cwd: t.TempDir(), Env: env}
	command := "#" + strings.Repeat("c", 120<<10) + "\necho ran ${#SHELLPORT_BIG_0}"
	res := run(t, k, s, command)
	if res.Text != fmt.Sprintf("ran %d\n", 60<<10) {
		t.Fatalf("got %q", res.Text)
	}
}

// inheritedFds reads `ls -l /proc/self/fd` output: the descriptors ls had,
// without the one it opened to read the listing.
func inheritedFds(listing string) string {
	var fds []string
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[len(f)-2] != "->" {
			continue
		}
		if target := f[len(f)-1]; strings.HasPrefix(target, "/proc/") && strings.HasSuffix(target, "/fd") {
			continue
		}
		fds = append(fds, f[len(f)-3])
	}
	return strings.Join(fds, " ")
}
