package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The program must start with default signal dispositions, an empty signal
// mask, only fds 0-2 open, and the terminal as controlling terminal, even
// when the helper's parent ignored and blocked signals and leaked fds.
func TestHelperResetsProcessState(t *testing.T) {
	helper := buildHelper(t)
	dir := t.TempDir()
	script := `exec 7</dev/null; trap "" INT QUIT USR1; exec ` + os.Args[0] + ` -test.run=^TestBlockedExec$ -- ` + helper + ` ` + dir
	out, st := runOnTerminal(t, "", "", "bash", "--noprofile", "--norc", "-c", script)
	if st.Code != 0 {
		t.Fatalf("status %+v; output %q", st, out)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"SigBlk", "SigIgn"} {
		if v, err := strconv.ParseUint(fields[k], 16, 64); err != nil || v != 0 {
			t.Errorf("%s = %q, want all clear\n%s", k, fields[k], out)
		}
	}
	if fields["fds"] != "0 1 2" {
		t.Errorf("open fds %q, want 0 1 2", fields["fds"])
	}
	if fields["tty"] == "" || fields["tty"] == "not a tty" {
		t.Errorf("no controlling terminal: %q", fields["tty"])
	}
	if real, _ := filepath.EvalSymlinks(dir); fields["cwd"] != real {
		t.Errorf("cwd %q, want %q", fields["cwd"], real)
	}
}

// TestBlockedExec is not a test on its own: TestHelperResetsProcessState
// runs the test binary with it to exec the helper from a thread that blocks
// signals, then the helper runs a probe that prints its own state.
func TestBlockedExec(t *testing.T) {
	args := flagArgs()
	if len(args) != 2 {
		t.Skip("helper process for TestHelperResetsProcessState")
	}
	runtime.LockOSThread()
	var all unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^uint64(0)
	}
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &all, nil); err != nil {
		t.Fatal(err)
	}
	unix.Dup2(0, 3) // the terminal as fd 3, as the contract says
	probe := `grep -E "^Sig(Blk|Ign)" /proc/self/status; echo "fds: $(ls /proc/self/fd | sort -n | tr '\n' ' ' | sed 's/ 3 $//; s/ $//')"; echo "tty: $(tty)"; echo "cwd: $(pwd -P)"`
	err := unix.Exec(args[0], []string{args[0], args[1], "/bin/sh", "-c", probe}, os.Environ())
	t.Fatalf("exec helper: %v", err)
}

func flagArgs() []string {
	for i, a := range os.Args {
		if a == "--" {
			return os.Args[i+1:]
		}
	}
	return nil
}
