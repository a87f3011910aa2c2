package persistent

import (
	"os"
	"strings"
	"testing"
	"time"
)

// Issue 10: a call ends when its command ends, whatever the command or its
// DEBUG trap writes into the return FIFO. The FIFO holds 64 KiB; before,
// anything beyond that blocked the shell until the call's timeout. The
// time each took is logged (never asserted); the timeout is far beyond
// it, and a call that reached it fails the test.
func TestReturnFIFOFloodDoesNotStallCall(t *testing.T) {
	cases := []struct {
		name, setup, command, want string
	}{
		{"DEBUG trap printing 200 KB to stdout each turn (issue 10)",
			`trap 'head -c 200000 /dev/zero | tr "\0" x' DEBUG`, "trap - DEBUG; echo done", "done\n"},
		{"DEBUG trap writing 200 KB into descriptor 12 (issue 10)",
			`trap 'head -c 200000 /dev/zero | tr "\0" x >&12' DEBUG`, "trap - DEBUG; echo done", "done\n"},
		{"a command writing 200 KB into descriptor 12 (issue 10)",
			"", `for i in $(seq 2000); do printf '%0100d' 0 >&12; done; false`, "[exit code: 1]"},
		{"a command writing NUL-ended junk into descriptor 12",
			"", `for i in $(seq 3000); do printf 'd0\0e\0t%032X 0\0' $i >&12; done; false`, "[exit code: 1]"},
	}
	for _, c := range cases {
		for _, noWaker := range []bool{false, true} {
			name := c.name
			if noWaker {
				name += ", waiting without a waker"
			}
			t.Run(name, func(t *testing.T) { floodCase(t, c.setup, c.command, c.want, noWaker) })
		}
	}
}

// floodCase runs one case of TestReturnFIFOFloodDoesNotStallCall; with
// noWaker the call waits on its channels alone (where no eventfd can be
// made), and a timer starts the drain.
func floodCase(t *testing.T, setup, command, want string, noWaker bool) {
	f := newFixture(t, Config{})
	if noWaker {
		pool := f.tool.shellCfg.wakers
		f.tool.shellCfg.wakers = nil
		t.Cleanup(func() { f.tool.shellCfg.wakers = pool })
	}
	f.expect("kept=yes", "[no output]")
	sh := f.shellOf("s")
	if setup != "" {
		start := time.Now()
		res := f.run(setup)
		t.Logf("setup answered in %v", time.Since(start).Round(time.Millisecond))
		if structured(t, res, "shellReset") != false {
			t.Fatalf("setup reset the shell: %q", res.Text)
		}
	}
	start := time.Now()
	res := f.run(command)
	t.Logf("command answered in %v", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(res.Text, want) || structured(t, res, "timedOut") != false || structured(t, res, "shellReset") != false {
		t.Fatalf("got %.300q %v, want it to end in %q", res.Text, res.Structured, want)
	}
	f.expect("echo $kept", "yes\n")
	if f.shellOf("s") != sh {
		t.Fatal("the shell was replaced")
	}
}

// Issue 10: what a DEBUG trap prints into the terminal is output like any
// other, cut to the output bound with the usual notice, and the call ends
// with its command.
func TestDebugTrapOutputIsBounded(t *testing.T) {
	f := newFixture(t, Config{MaxOutputChars: 1000})
	f.expect(`trap 'head -c 100000 /dev/zero | tr "\0" y' DEBUG`, "[no output]")
	res := f.run("false")
	if structured(t, res, "truncated") != true || structured(t, res, "exitCode") != 1 || !strings.Contains(res.Text, "[output truncated; full output: ") {
		t.Fatalf("got %.300q %v", res.Text, res.Structured)
	}
	if res := f.run("trap - DEBUG"); structured(t, res, "shellReset") != false {
		t.Fatalf("trap - DEBUG: %.300q", res.Text)
	}
	f.expect("echo plain", "plain\n")
}

// Issue 10: a background job that reads the shell's return FIFO (it can
// open /proc/$$/fd/12 for reading) takes the driver's report; the frame
// then comes with no record. Before, the call waited for its timeout; now
// it ends at once, says the status is unknown, and resets the shell. A
// call whose report the runtime read first ends normally: each call is one
// or the other, and with the job reading all the time one is taken.
func TestStolenReportEndsCallClearly(t *testing.T) {
	onEveryLoopPath(t, func(path string) {
		f := newFixture(t, Config{})
		f.expect("kept=yes", "[no output]")
		taken := "read or wrote the shell's report of its exit status, so the status is unknown; the shell was reset"
		job := `(exec 3</proc/$$/fd/12; while :; do dd bs=64 count=1 <&3 >/dev/null 2>&1; done) & sleep 0.2; `
		for i := 0; ; i++ {
			if i == 20 {
				t.Fatalf("%s: no report was taken in %d calls", path, i)
			}
			command := "echo call; false"
			if i == 0 {
				command = job + command
			}
			res := f.run(command)
			if structured(t, res, "timedOut") != false {
				t.Fatalf("%s: waited for the timeout: %q", path, res.Text)
			}
			if res.Text == "call\n[exit code: 1]" {
				continue
			}
			if !strings.HasPrefix(res.Text, "call\n[the command finished, but another process") || !strings.Contains(res.Text, taken) ||
				structured(t, res, "shellReset") != true || structured(t, res, "exitCode") != nil {
				t.Fatalf("%s: got %q %v", path, res.Text, res.Structured)
			}
			break
		}
		f.expect("echo \"[$kept]\"", "[]\n")
		f.expect("false", "[exit code: 1]")
	})
}

// Issue 10: a command that writes a record into the return FIFO and then
// kills its shell does not choose its call's status: after the shell's
// death the call says what the kernel reported (the signal, the exit
// code), and believes the FIFO's last records only when the shell exited
// the way its loop's end makes it exit.
func TestDyingShellStatusIsTheKernels(t *testing.T) {
	cases := []struct{ name, command, want string }{
		{"a finished-status record, then SIGKILL", `printf 'd7\0' >&12; kill -9 $$`,
			"[killed by signal: SIGKILL]\n[the shell was killed, so it was reset: "},
		{"a token record, then SIGKILL", `printf 't%032X 7\0' 5 >&12; kill -9 $$`,
			"[killed by signal: SIGKILL]\n[the shell was killed, so it was reset: "},
		{"a loop-ended record, then SIGKILL", `printf 'e\0' >&12; kill -9 $$`,
			"[killed by signal: SIGKILL]\n[the shell was killed, so it was reset: "},
		{"a finished-status record, then exit 3", `printf 'd7\0' >&12; exit 3`,
			"[exit code: 3]\n[the shell exited, so it was reset: "},
		{"a loop-ended record, then SIGTERM", `printf 'e\0' >&12; kill -TERM $$`,
			"[killed by signal: SIGTERM]\n[the shell was killed, so it was reset: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			res := f.run(c.command)
			if !strings.HasPrefix(res.Text, c.want) || structured(t, res, "shellReset") != true {
				t.Fatalf("got %q, want it to start with %q", res.Text, c.want)
			}
			if strings.Contains(res.Text, "exit code: 7") || strings.Contains(res.Text, "command loop") {
				t.Fatalf("the record the command wrote was believed: %q", res.Text)
			}
			f.expect("echo next", "next\n")
		})
	}
}

// Issue 10: without $SRANDOM (bash before 5.1, or after unset SRANDOM) a
// token is a counter, which a command can predict: a background job it
// left can write the record of a later call's token, with a status of its
// choosing, before the driver writes the real one. The call must not
// report the forged status: two records of one token are not believed,
// and the call ends saying its status is unknown. The turn builtin draws
// its token from the kernel whatever $SRANDOM holds, so there the forged
// record names no token of the driver's and the call ends with its own
// status.
func TestPredictedTokenRecordIsNotBelieved(t *testing.T) {
	onEveryLoopPath(t, func(path string) {
		f := newFixture(t, Config{})
		// The next call's report will carry __sp_n+2; the job writes it
		// while that call runs (it waits for the file the call makes).
		f.expect(`unset SRANDOM; next=$((__sp_n + 2)); (while [ ! -e go ]; do sleep 0.01; done; printf 't%016X%016X 0\0' 0 $next >&12; touch written) & :`, "[no output]")
		res := f.run("touch go; while [ ! -e written ]; do sleep 0.01; done; false")
		if structured(t, res, "exitCode") == 0 {
			t.Fatalf("%s: the forged status was believed: %q", path, res.Text)
		}
		if path == turnPath {
			if res.Text != "[exit code: 1]" || structured(t, res, "shellReset") != false {
				t.Fatalf("%s: got %q %v", path, res.Text, res.Structured)
			}
			return
		}
		if !strings.Contains(res.Text, "read or wrote the shell's report of its exit status, so the status is unknown; the shell was reset") ||
			structured(t, res, "shellReset") != true || structured(t, res, "exitCode") != nil {
			t.Fatalf("%s: got %q %v", path, res.Text, res.Structured)
		}
		f.expect("false", "[exit code: 1]")
	})
}

// The limit (docs/TOOLS.md, issue 10): code that impersonates the loop —
// here a command that writes a whole record into the return FIFO and
// prints the matching frame — ends its call with a status it chose. No
// design inside one bash process can exclude it: the command holds the
// loop's descriptors.
func TestLimitImpersonatingTheLoopChoosesItsStatus(t *testing.T) {
	f := newFixture(t, Config{})
	res := f.run(`printf 'tFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF 0\0' >&12; printf '\033_SPFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF\033\\'; sleep 0.2; false`)
	if structured(t, res, "exitCode") != 0 || structured(t, res, "shellReset") != false {
		t.Fatalf("the limit no longer holds (update docs/TOOLS.md): %q %v", res.Text, res.Structured)
	}
}

// Issue 10: a background job that reads the shell's control FIFO
// (/proc/$$/fd/11) takes wake-ups meant for the shell, or one that reads
// the return FIFO takes reports after a command changed the loop's
// counter, so that onFrame cannot tell the driver's frame. Before, such a
// call waited for its timeout; now the shell is found waiting for a
// command while the call's has not ended, and the call ends saying so
// (Linux: from /proc/PID/syscall). Each call is that or a normal end.
func TestLostCommandEndsCallClearly(t *testing.T) {
	if _, err := os.Stat("/proc/self/syscall"); err != nil {
		t.Skipf("no /proc/PID/syscall: %v", err)
	}
	cases := []struct{ name, job, each, want string }{
		{"a job reading the control FIFO", `(exec 3</proc/$$/fd/11; while :; do dd bs=1 count=1 <&3 >/dev/null 2>&1; done) & sleep 0.2; `, "",
			"[the shell was found waiting for a command while this one had not ended: another process (such as a background job using the shell's descriptors through /proc) read the shell's control or return FIFO, so whether the command ran, and its exit status, are unknown; the shell was reset: "},
		{"a job reading the return FIFO, each command changing the counter", `(exec 3</proc/$$/fd/12; while :; do dd bs=64 count=1 <&3 >/dev/null 2>&1; done) & sleep 0.2; `, "__sp_n=$((__sp_n + 5)); ",
			"call\n[the shell was found waiting for a command while this one had not ended: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.expect("kept=yes", "[no output]")
			for i := 0; ; i++ {
				if i == 20 {
					t.Fatalf("the job took nothing in %d calls", i)
				}
				command := c.each + "echo call; false"
				if i == 0 {
					command = c.job + command
				}
				start := time.Now()
				res := f.run(command)
				t.Logf("answered in %v: %.80q", time.Since(start).Round(time.Millisecond), res.Text)
				if structured(t, res, "timedOut") != false {
					t.Fatalf("waited for the timeout: %q", res.Text)
				}
				if res.Text == "call\n[exit code: 1]" {
					continue
				}
				if !strings.HasPrefix(res.Text, c.want) || structured(t, res, "shellReset") != true || structured(t, res, "exitCode") != nil {
					t.Fatalf("got %q %v", res.Text, res.Structured)
				}
				break
			}
			f.expect("echo \"[$kept]\"", "[]\n")
		})
	}
}
