package persistent

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Issue 16: the turn builtin is looked up beside the spawn helper in use,
// and a shell that cannot load what it finds there (another architecture,
// a damaged file, a bash without loadable builtins) runs its loop as shell
// commands: the same results, no error.
func TestTurnLibBesideTheHelper(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the turn builtin is Linux's")
	}
	helper := spawnHelper(t)
	if turnLibBeside(helper) == "" {
		t.Fatalf("the test helper %s has no %s beside it", helper, TurnLibName)
	}
	if got := turnLibBeside(filepath.Join(t.TempDir(), "shellport-spawn-helper")); got != "" {
		t.Fatalf("found %q beside a helper that has none", got)
	}
	for _, c := range []struct {
		name string
		lib  []byte // nil: none
		want string
	}{
		{"none beside the helper", nil, "[exit code: 1]"},
		{"a file that is not a shared object", []byte("not an ELF file\n"), "[exit code: 1]"},
		{"an empty file", []byte{}, "[exit code: 1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copied := filepath.Join(dir, "shellport-spawn-helper")
			b, err := os.ReadFile(helper)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(copied, b, 0o755); err != nil {
				t.Fatal(err)
			}
			if c.lib != nil {
				if err := os.WriteFile(filepath.Join(dir, TurnLibName), c.lib, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := newFixture(t, Config{SpawnHelper: copied})
			f.expect("type -t __sp_turn", c.want)
			f.expect("x=kept; echo ok", "ok\n")
			f.expect("set -x", "[no output]")
			f.expect(`set +x; echo "$x"`, "++ set +x\nkept\n")
		})
	}
}

// Issue 16: the turn builtin is built against bash's exported functions,
// so make test-bash-versions runs the loop's tests on other versions of
// bash put first on PATH, and names the version it meant
// (SHELLPORT_TEST_BASH_VERSION): this holds the run to that bash, and
// that bash to loading the builtin.
func TestTurnBuiltinLoadsOnThisBash(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the turn builtin is Linux's")
	}
	f := newFixture(t, Config{})
	want := os.Getenv("SHELLPORT_TEST_BASH_VERSION")
	got := f.run(`echo "${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}"; type -t __sp_turn`).Text
	if want != "" && !strings.HasPrefix(got, want+"\n") {
		t.Fatalf("the shell is bash %q, not %s", got, want)
	}
	if !strings.HasSuffix(got, "\nbuiltin\n") {
		t.Fatalf("the shell did not load the turn builtin: %q", got)
	}
}
