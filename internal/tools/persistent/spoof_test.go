package persistent

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 3: no command can end a call early by printing the marker, whether
// by dumping shell state, reading the private files, or replaying an old
// marker.
func TestStateDumpsNeverRevealMarker(t *testing.T) {
	f := newFixture(t, Config{MaxOutputChars: 1 << 20})
	f.expect("myfunc() { echo mine; }; trap 'echo bye' EXIT; alias a1='echo a'", "[no output]")
	dir := f.shellOf("s").dir
	dumps := []string{
		"set", "declare -p", "declare -f", "env", "export -p", "history", "trap -p", "alias", "jobs -l",
		"tr '\\0' '\\n' </proc/$$/cmdline", "tr '\\0' '\\n' </proc/$$/environ",
		"ls -la /proc/$$/fd", "ls -A " + dir, "cat " + dir + "/* 2>&1",
		"for fd in /proc/$$/fd/*; do [ -f $fd ] && cat $fd; done",
		"echo $BASH_EXECUTION_STRING $BASH_COMMAND",
	}
	for _, dump := range dumps {
		res := f.run(dump + "; echo END-OF-DUMP")
		marker := string(f.shellOf("s").last)
		if !strings.HasSuffix(res.Text, "END-OF-DUMP\n") {
			t.Fatalf("%q: call did not run to its end: %q", dump, res.Text)
		}
		for _, secret := range []string{marker, marker[:16], marker[16:]} {
			if strings.Contains(res.Text, secret) {
				t.Fatalf("%q revealed %q of marker %s:\n%s", dump, secret, marker, res.Text)
			}
		}
		f.expect("echo next", "next\n")
	}
}

// A marker is good for one call only: printing the previous call's marker,
// or any well-formed fake frame, does not end the current call.
func TestReplayedMarkerDoesNotEndCall(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("true", "[no output]")
	old := string(f.shellOf("s").last)
	fake := strings.Repeat("0123456789abcdef", 2)
	cmd := fmt.Sprintf("printf '%%s 0\\n' %s %s; echo after", old, fake)
	f.expect(cmd, old+" 0\n"+fake+" 0\nafter\n")
	if string(f.shellOf("s").last) == old {
		t.Fatal("marker reused across calls")
	}
	f.expect("echo clean", "clean\n")
}

// Issue 10: the token that ends a call exists nowhere until the command has
// finished: a command that reads its shell's variables and every file it
// holds finds no part of its own token.
func TestTokenAbsentDuringCommand(t *testing.T) {
	f := newFixture(t, Config{MaxOutputChars: 1 << 20})
	f.expect("true", "[no output]")
	res := f.run("set; for fd in /proc/$$/fd/*; do [ -f $fd ] && cat $fd; done; echo done")
	token := string(f.shellOf("s").last)
	if !strings.HasSuffix(res.Text, "done\n") {
		t.Fatalf("the dump did not run to its end: %q", res.Text)
	}
	for _, part := range []string{token, token[:16]} { // the random half; the rest counts calls
		if strings.Contains(res.Text, part) {
			t.Fatalf("the current token %s was readable during the command:\n%s", token, res.Text)
		}
	}
}
