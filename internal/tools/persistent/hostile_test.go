package persistent

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 10: what a command does to its shell either leaves the shell
// working exactly as before (the next calls see their own output and
// status, and nothing of the driver), or ends the shell at once, with a
// result that says so. No case may wait for the timeout.
//
// Each survivor runs setup, then checks: commands and the exact text each
// must return.
func TestHostileCommandsLeaveShellWorking(t *testing.T) {
	type check struct{ command, want string }
	cases := []struct {
		name   string
		setup  string
		checks []check
	}{
		{"DEBUG trap sees only the command (issue 10)", `trap 'echo "[$BASH_COMMAND]"' DEBUG`,
			[]check{{"false", "[false]\n[exit code: 1]"}, {"trap - DEBUG; echo x", "[trap - DEBUG]\nx\n"}, {"echo plain", "plain\n"}}},
		{"DEBUG trap with functrace and extdebug", `shopt -s extdebug; set -T; trap 'echo "[$BASH_COMMAND]" >&2' DEBUG`,
			[]check{{"echo hi", "[echo hi]\nhi\n"}, {"trap - DEBUG; shopt -u extdebug; set +T", "[trap - DEBUG]\n"}}},
		{"DEBUG trap printing frames with the loop's variables", `trap 'printf "\033_SP%s\033\\\\" "${__sp_t-}${__sp_x-}" >/dev/tty' DEBUG`,
			[]check{{"false", "[exit code: 1]"}, {"trap - DEBUG", "[no output]"}, {"echo clean", "clean\n"}}},
		// Issue 16: what a DEBUG trap prints before the loop clears it goes
		// into the return FIFO ahead of the report, and changes nothing.
		{"DEBUG trap printing report-like lines", `trap 'echo e; echo d0; printf "d0\\0e\\0d"' DEBUG`,
			[]check{{"false", "e\nd0\nd0ed\n[exit code: 1]"}, {"trap - DEBUG", "e\nd0\nd0ed"}, {"echo plain", "plain\n"}}},
		{"ERR and RETURN traps, errtrace", `trap 'echo ERR' ERR; trap 'echo RET' RETURN; set -E`,
			[]check{{"echo ok", "ok\n"}, {"trap - ERR RETURN; set +E", "[no output]"}}},
		{"nounset", "set -u", []check{{"echo ok", "ok\n"}, {"set +u", "[no output]"}}},
		// The loop keeps xtrace out of its own turn and gives it back to
		// the next command, and only while the command leaves it on.
		{"xtrace on, then off", "set -x", []check{{"echo ok", "++ echo ok\nok\n"}, {"set +x", "++ set +x\n"},
			{"case $- in *x*) echo on;; *) echo off;; esac", "off\n"}, {"echo plain", "plain\n"}}},
		{"errexit", "set -e", []check{{"echo ok", "ok\n"}, {"set +e", "[no output]"}}},
		{"IFS", "IFS=,:", []check{{"echo a b", "a b\n"}, {"unset IFS", "[no output]"}}},
		{"functions named like the builtins the loop uses",
			"read() { echo F; }; printf() { echo F; }; eval() { echo F; }; trap() { echo F; }; set() { echo F; }; unset() { echo F; }; command() { echo F; }; enable() { echo F; }",
			[]check{{"echo ok", "ok\n"}, {"builtin unset -f read printf eval trap set unset command enable", "[no output]"}}},
		{"aliases shadowing builtin and keywords",
			"shopt -s expand_aliases; alias builtin='echo A' until='echo U' eval='echo E' printf='echo P' read='echo R' exit='echo X'",
			[]check{{"echo ok", "ok\n"}, {"unalias -a", "[no output]"}}},
		{"attributes on the loop's variables (issue 10)",
			"declare -u __sp_c __sp_o __sp_p __sp_d __sp_w __sp_t; declare -i __sp_k; declare -l __sp_x; export __sp_c",
			[]check{{"echo ok; false", "ok\n[exit code: 1]"}, {`case "$(declare -p __sp_c)" in "declare -- "*) echo plain;; esac`, "plain\n"}}},
		{"attributes on the variable holding the DEBUG trap (issue 16)", `trap 'echo "[dbg]"' DEBUG; declare -u __sp_d; declare -n __sp_o=__sp_d`,
			[]check{{"echo hi", "[dbg]\nhi\n"}, {"trap - DEBUG", "[dbg]\n"}, {"echo plain", "plain\n"}}},
		{"namerefs on the loop's variables (issue 10)", "declare -n __sp_c=a1 __sp_w=a2 __sp_p=a3 __sp_d=a4 __sp_t=a5 2>/dev/null; :",
			[]check{{"echo ok", "ok\n"}}},
		{"stty olcuc (issue 10)", "stty olcuc", []check{{"echo abc", "ABC\n"}, {"stty -olcuc; echo abc", "abc\n"}}},
		{"stty onlcr ocrnl", "stty onlcr ocrnl", []check{{"echo ok", "ok\n"}, {"stty -onlcr -ocrnl", "[no output]"}}},
		{"ulimit -n 64 (issue 10)", "ulimit -n 64", []check{{"echo ok", "ok\n"}, {"exec 9>/dev/null && echo fd9", "fd9\n"}}},
		// Issue 16: the loop's descriptors are 10–14, bash's close-on-exec
		// saved copies, so a limit below them no longer stops the loop.
		{"ulimit -n 30 (issue 16)", "ulimit -n 30", []check{{"echo ok", "ok\n"}, {"false", "[exit code: 1]"}}},
		{"ulimit -n 10 (issue 16)", "ulimit -n 10", []check{{"echo ok; (echo sub)", "ok\nsub\n"}}},
		{"exec redirections of 10-14 (issue 16)", "exec 10</dev/null 11</dev/null 12>/dev/null 13>/dev/null 14>/dev/null",
			[]check{{"echo ok", "ok\n"}, {"false", "[exit code: 1]"}}},
		{"exec redirections of the loop's descriptors", "exec 30</dev/null 31</dev/null 32>/dev/null 33>/dev/null 34>/dev/null",
			[]check{{"echo ok", "ok\n"}, {"exec 30<&- 31<&- 32>&- 33>&- 34>&-", "[no output]"}, {"echo still", "still\n"}}},
		{"stdout and stderr to /dev/null", "exec >/dev/null 2>&1", []check{{"echo hidden; exec >/dev/tty 2>&1; echo shown", "shown\n"}}},
		{"stdin, stdout and stderr closed", "exec 0<&- 1>&- 2>&-", []check{{"echo hidden; exec 0</dev/tty 1>/dev/tty 2>&1; echo shown", "shown\n"}}},
		{"ulimit -v and -u", "ulimit -v 400000; ulimit -u 1", []check{{"echo ok; (echo subshell)", "ok\nsubshell\n"}}},
		{"posix mode", "set -o posix; POSIXLY_CORRECT=1", []check{{"echo ok", "ok\n"}, {"set +o posix; unset POSIXLY_CORRECT", "[no output]"}}},
		{"prompt, trace and startup variables", `PROMPT_COMMAND='echo PC'; PS0=P0; PS1=P1; PS4='+$(echo INJECT) '; BASH_ENV=/dev/null; ENV=/dev/null`,
			[]check{{"echo ok", "ok\n"}}},
		{"a pile of options", "set -a -k -f -C -b -h -P -B; shopt -s nullglob failglob nocasematch extglob xpg_echo; shopt -s lastpipe globasciiranges 2>/dev/null",
			[]check{{"echo ok", "ok\n"}, {"set +a +k +f +C +b; shopt -u nullglob failglob nocasematch xpg_echo; shopt -u lastpipe 2>/dev/null; :", "[no output]"}}},
		{"SRANDOM unset", "unset SRANDOM", []check{{"echo ok", "ok\n"}, {"false", "[exit code: 1]"}}},
		{"command_not_found_handle", "command_not_found_handle() { echo CNF; }", []check{{"echo ok", "ok\n"}}},
		{"continue at top level", "continue", []check{{"echo ok", "ok\n"}}},
		{"TMOUT", "TMOUT=1", []check{{"sleep 1.5; echo ok", "ok\n"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.expect("cd /; kept=yes", "[no output]")
			sh := f.shellOf("s")
			res := f.run(c.setup)
			if structured(t, res, "shellReset") != false {
				t.Fatalf("setup %q reset the shell: %q", c.setup, res.Text)
			}
			for _, ch := range c.checks {
				f.expect(ch.command, ch.want)
			}
			f.expect("echo $kept; pwd", "yes\n/\n")
			if f.shellOf("s") != sh {
				t.Fatal("the shell was replaced")
			}
		})
	}
}

// Issue 10: a command that leaves the shell unable to run its command loop
// is answered at once, without waiting for the timeout, with the reset in
// plain words; the next call runs in a fresh shell. The time each took is
// logged (never asserted).
func TestHostileCommandsResetShellAtOnce(t *testing.T) {
	unusable := "left the shell unable to run further commands"
	cases := []struct {
		name, command string
		want          []string // in the result text
		exitCode      any
		only          string // "": every path of the loop; scriptPath: those that run it as shell commands (the turn builtin does without these builtins); turnPath: the turn builtin's
	}{
		{"set -n (issue 10)", "set -n", []string{"[the shell exited, so it was reset: "}, 0, ""},
		{"a function named builtin (issue 10)", "builtin() { :; }", []string{"command loop stopped", unusable}, nil, ""},
		{"enable -n read exit (issue 10)", "enable -n read exit", []string{"[the command finished, but it " + unusable}, 0, scriptPath},
		{"enable -n printf", "enable -n printf", []string{"command loop stopped", unusable}, nil, scriptPath},
		{"the turn builtin disabled", "enable -n __sp_turn", []string{"[the command finished, but it " + unusable}, 0, turnPath},
		{"the turn builtin deleted", "enable -d __sp_turn", []string{"[the command finished, but it " + unusable}, 0, turnPath},
		{"enable -n eval", "enable -n eval; false", []string{"[exit code: 1]", "[the command finished, but it " + unusable}, 1, ""},
		{"enable -n trap set unset", "enable -n trap set unset", []string{"[the command finished, but it " + unusable}, 0, scriptPath},
		{"a read-only loop variable (issue 10)", "declare -r __sp_c=x", []string{"[the command finished, but it " + unusable}, 0, ""},
		{"break outside a loop", "break", []string{"command loop stopped", "break outside any loop"}, nil, ""},
		{"ulimit -n too low to save a descriptor", "ulimit -n 4", []string{unusable}, nil, ""},
		{"the loop's descriptors closed (issue 16)", "exec 10<&- 11<&- 12>&- 13>&- 14>&-", []string{"command loop stopped"}, nil, ""},
		{"bash's saved copies of the loop's descriptors closed",
			"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ $n -ge 10 ] && [ $n -lt 30 ]; then eval \"exec $n>&-\"; fi; done",
			[]string{"command loop stopped"}, nil, ""},
		{"extdebug with a DEBUG trap that skips every command", "shopt -s extdebug; trap false DEBUG", []string{"[the shell exited, so it was reset: "}, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			onTurn := f.onTurnPath()
			if c.only == turnPath && !onTurn {
				t.Skip("the shell runs the loop as shell commands")
			}
			f.expect("cd /; kept=yes", "[no output]")
			start := time.Now()
			res := f.run(c.command)
			t.Logf("%q: answered in %v: %q", c.command, time.Since(start).Round(time.Millisecond), res.Text)
			if c.only == scriptPath && onTurn {
				// Nothing the turn builtin needs is gone: the shell goes on.
				if res.Text != "[no output]" || structured(t, res, "shellReset") != false {
					t.Fatalf("got %q %v", res.Text, res.Structured)
				}
				f.expect("echo \"[$kept]\"; pwd", "[yes]\n/\n")
				return
			}
			if structured(t, res, "timedOut") != false {
				t.Fatalf("waited for the timeout: %q", res.Text)
			}
			if structured(t, res, "shellReset") != true {
				t.Fatalf("shellReset false: %q", res.Text)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text)
				}
			}
			if !strings.Contains(res.Text, "are gone, and the next command starts in a fresh shell in "+f.cwd) {
				t.Errorf("result does not say the shell was reset:\n%s", res.Text)
			}
			if c.exitCode != nil && structured(t, res, "exitCode") != c.exitCode {
				t.Errorf("exitCode %v, want %v", res.Structured["exitCode"], c.exitCode)
			}
			f.expect("echo \"[$kept]\"; pwd", "[]\n"+f.cwd+"\n")
		})
	}
}

// Issue 10: nothing a command prints, and nothing its background jobs print,
// ends a call or sets its status: a frame counts only when the shell's
// return FIFO holds its token, and the token is drawn after the command.
func TestForgedFramesDoNotEndCall(t *testing.T) {
	f := newFixture(t, Config{})
	f.expect("true", "[no output]")
	old := string(f.shellOf("s").last)
	frame := func(token string) string { return `printf '\033_SP%s\033\\' ` + token }
	for _, c := range []struct{ name, command string }{
		{"made-up token", frame("0123456789ABCDEF0123456789ABCDEF") + "; false"},
		{"the previous call's token", frame(old) + "; false"},
		{"the end-of-loop token", frame(endToken) + "; false"},
		{"background job printing frames", "(for i in 1 2 3 4 5; do " + frame("$(printf %032X $i)") + "; sleep 0.01; done) & false; wait; false"},
		{"a report written to the terminal", `printf 'd0\nt0123456789ABCDEF0123456789ABCDEF\n'; ` + frame("0123456789ABCDEF0123456789ABCDEF") + "; false"},
		// The command holds the return FIFO's descriptor (12) too. A partial
		// record it leaves there is glued to the front of the driver's,
		// which is read from its end (issue 16; before, "d0\nd" turned the
		// driver's "d1" into "dd1" and the status into 0).
		{"a partial report written to the return FIFO", `printf 'd0\nd' >&12; false`},
		{"a partial token record written to the return FIFO", `printf 't0123456789ABCDEF0123456789ABCDEF 0\0t' >&12; false`},
		{"background job writing partial records to the return FIFO", `(for i in 1 2 3 4 5; do printf 'd0\0t%032X 0\0d0\nd' $i >&12; sleep 0.01; done) & false; wait; false`},
	} {
		res := f.run(c.command)
		if !strings.HasSuffix(res.Text, "[exit code: 1]") || structured(t, res, "exitCode") != 1 {
			t.Errorf("%s: got %q %v, want exit code 1", c.name, res.Text, res.Structured["exitCode"])
		}
		f.expect("echo next", "next\n")
	}
}

// Issue 16: on the turn builtin's path the loop unsets its variables with
// unset -n, so a nameref a command made of one is dropped and its target
// left alone (unset -v would unset the target at every turn, and the
// builtin's assignment would go to it).
func TestTurnPathNamerefsKeepTheirTargets(t *testing.T) {
	f := newFixture(t, Config{})
	if !f.onTurnPath() {
		t.Skip("the shell runs the loop as shell commands")
	}
	f.expect("keep1=a keep2=b; declare -n __sp_c=keep1 __sp_r=keep2; set -x", "[no output]")
	f.expect(`set +x; echo "$keep1 $keep2"`, "++ set +x\na b\n")
	f.expect(`case $- in *x*) echo on;; *) echo off;; esac; echo "$keep1 $keep2"`, "off\na b\n")
}

// Issue 10: a trapped signal that interrupts the loop's wait between calls
// runs the trap at once, not at the next call, and leaves the shell
// working.
func TestTrappedSignalWhileIdle(t *testing.T) {
	onEveryLoopPath(t, func(path string) {
		f := newFixture(t, Config{})
		f.expect("trap 'echo got-usr1; touch trapped' USR1", "[no output]")
		sh := f.shellOf("s")
		waitIdle(t, sh)
		if err := syscall.Kill(sh.proc.Pid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		eventuallyFile(t, filepath.Join(f.cwd, "trapped"))
		f.expect("echo ok", "got-usr1\nok\n")
		if f.shellOf("s") != sh {
			t.Fatalf("%s: the shell was replaced", path)
		}
	})
}

// BenchmarkBrokenShellDetected measures how long a call takes when its
// command leaves the shell unable to run the loop (set -n): the time from
// the call to the result that says the shell was reset.
func BenchmarkBrokenShellDetected(b *testing.B) {
	f := benchFixture(b, Config{})
	for range b.N {
		res, err := f.callIn(context.Background(), "s", "set -n")
		if err != nil || res.Structured["shellReset"] != true {
			b.Fatalf("%v %v", res, err)
		}
	}
}
