//go:build linux

package spawnhelper_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/testkit"
)

// Issue 16: a supervisor lives as long as its program, a persistent
// shell's for the session's life. It reads the program's strings from a
// spec (a file from Start, a socket for a spare) and unmaps them once the
// program has been exec'd, so what it holds does not grow with them: on
// the command line they stayed in its stack, and a spare kept its spec
// mapped.

// anonymousBytes is the memory pid holds that no file backs (its stack,
// its zeroed data and its own mappings), from smaps_rollup.
func anonymousBytes(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("smaps_rollup: %q", line)
			}
			return kb << 10
		}
	}
	t.Fatalf("no Anonymous line in smaps_rollup of %d", pid)
	return 0
}

func TestSupervisorLetsGoOfTheProgramsStrings(t *testing.T) {
	// 256 KB of environment and arguments: each string stays under exec's
	// limit for one (128 KB).
	chunk := strings.Repeat("e", 60<<10)
	env := append(os.Environ(), "SP_A="+chunk, "SP_B="+chunk)
	args := []string{"bash", "--noprofile", "--norc", "-c", `echo "${#SP_A} ${#SP_B} ${#1} ${#2}"; exec sleep 600`, "bash", chunk, chunk}
	sp, helper := readySpares(t)
	for name, startWith := range map[string]func(context.Context, spawnhelper.Spec) (*spawnhelper.Process, error){
		"exec'd": spawnhelper.Start, "spare": sp.Start,
	} {
		t.Run(name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			p, err := startWith(context.Background(), spawnhelper.Spec{Helper: helper, Path: "bash", Args: args, Env: env, Stdout: w, Stderr: w})
			_ = w.Close()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = p.KillAll(); _, _ = p.Wait() }()
			line, err := bufio.NewReader(r).ReadString('\n')
			if want := strings.Repeat(strconv.Itoa(len(chunk))+" ", 4); line != strings.TrimSpace(want)+"\n" {
				t.Fatalf("the program saw %q (%v), want %q", line, err, want)
			}
			// The program has been exec'd: its strings are 240 KB, the
			// supervisor's own pages a few.
			if got := anonymousBytes(t, p.SupervisorPid()); got > 64<<10 {
				t.Errorf("the supervisor holds %d KB of anonymous memory after its program's exec", got>>10)
			}
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(p.SupervisorPid()) + "/cmdline")
			if strings.Contains(string(cmdline), "eeee") {
				t.Errorf("the supervisor's command line holds the program's arguments: %.200q", cmdline)
			}
		})
	}
}

// specMessage is a spec as spare.c reads it: the header, then strings.
func specMessage(roles uint32, strs ...string) []byte {
	payload := strings.Join(strs, "\x00") + "\x00"
	h := make([]byte, 24)
	binary.NativeEndian.PutUint32(h[0:], 0x31535053)
	binary.NativeEndian.PutUint32(h[4:], uint32(len(payload)))
	binary.NativeEndian.PutUint32(h[8:], roles)
	binary.NativeEndian.PutUint32(h[16:], uint32(len(strs)-2))
	return append(h, payload...)
}

// runWithSpecFile runs the helper with --supervise --spec on a memfd
// holding spec, and extra options; it returns the first report line and
// what the helper wrote to stderr.
func runWithSpecFile(t *testing.T, spec []byte, extra ...string) (report, stderr string) {
	t.Helper()
	fd, err := unix.MemfdCreate("spec", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	specFile := os.NewFile(uintptr(fd), "spec")
	defer specFile.Close()
	if _, err := specFile.Write(spec); err != nil {
		t.Fatal(err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer lifeW.Close()
	reportR, reportW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer reportR.Close()
	cmd := exec.Command(testkit.SpawnHelper(t), append([]string{"--life", "3", "--report", "4", "--spec", "5"}, extra...)...)
	cmd.ExtraFiles = []*os.File{lifeR, reportW, specFile}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = lifeR.Close()
	_ = reportW.Close()
	line, _ := bufio.NewReader(reportR).ReadString('\n')
	_ = lifeW.Close()
	_ = cmd.Wait()
	return line, errOut.String()
}

func TestSpecFileRefusals(t *testing.T) {
	good := specMessage(0, "", "/bin/true", "true")
	for _, tc := range []struct {
		name  string
		spec  []byte
		extra []string
	}{
		{"descriptors named in the spec", specMessage(1, "", "/bin/true", "true"), []string{"--supervise"}},
		{"a byte after the spec", append(append([]byte(nil), good...), 'x'), []string{"--supervise"}},
		{"cut short", good[:len(good)-1], []string{"--supervise"}},
		{"a header only", good[:24], []string{"--supervise"}},
		{"not a spec", append([]byte("SPS0"), good[4:]...), []string{"--supervise"}},
		{"with DIR and PROGRAM", good, []string{"--supervise", "--", "", "true"}},
		{"with --argv0", good, []string{"--supervise", "--argv0", "x"}},
		{"without --supervise", good, nil},
		{"with --spare", good, []string{"--supervise", "--spare", "6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			report, stderr := runWithSpecFile(t, tc.spec, tc.extra...)
			if report != "error usage 22\n" {
				t.Fatalf("report %q (stderr %q), want a usage error", report, stderr)
			}
		})
	}
	if report, stderr := runWithSpecFile(t, good, "--supervise"); !strings.HasPrefix(report, "pid ") {
		t.Fatalf("a good spec: report %q (stderr %q)", report, stderr)
	}
}

// A string with a NUL cannot be passed to exec: Start fails as exec
// would, and starts nothing.
func TestSpecWithANulIsRefused(t *testing.T) {
	for name, spec := range map[string]spawnhelper.Spec{
		"argument":    {Path: "true", Args: []string{"true", "a\x00b"}},
		"environment": {Path: "true", Env: []string{"A=a\x00b"}},
		"directory":   {Path: "true", Dir: "/tmp\x00x"},
	} {
		t.Run(name, func(t *testing.T) {
			spec.Helper = testkit.SpawnHelper(t)
			if err := startFails(t, "Start", spawnhelper.Start, spec); !errors.Is(err, syscall.EINVAL) {
				t.Fatalf("error %v, want EINVAL", err)
			}
		})
	}
}
