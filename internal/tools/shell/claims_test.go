package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/TOOLS.md, issue 18: the Responses API shell's `shell` names the
// bash each command of a batch runs in (issue 18: the option had no test).
func TestShellOption(t *testing.T) {
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "my-bash")
	marker := filepath.Join(dir, "used")
	script := "#!/bin/sh\necho used >> " + marker + "\nexec bash \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tl := newShell(t, Config{Shell: wrapper})
	out := outputs(t, call(t, tl, t.TempDir(), batch("echo one", "echo two")))
	if len(out) != 2 || out[0].Stdout != "one\n" || out[1].Stdout != "two\n" {
		t.Fatalf("outputs %+v", out)
	}
	if b, err := os.ReadFile(marker); err != nil || strings.Count(string(b), "used\n") != 2 {
		t.Fatalf("the configured shell ran %q (%v), want once per command", b, err)
	}
}
