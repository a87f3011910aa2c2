package persistent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/TOOLS.md, issue 18: `shell` names the bash the persistent tool
// starts on its terminal (issue 18: the option had no test). One shell per
// session: two calls start it once.
func TestShellOption(t *testing.T) {
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "my-bash")
	marker := filepath.Join(dir, "used")
	script := "#!/bin/sh\necho started >> " + marker + "\nexec bash \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Config{Shell: wrapper})
	f.expect("x=kept; echo one", "one\n")
	f.expect("echo $x", "kept\n")
	if b, err := os.ReadFile(marker); err != nil || string(b) != "started\n" {
		t.Fatalf("the configured shell started %q (%v), want once", b, err)
	}
}

// docs/TOOLS.md, issue 18: "If the shell itself died: [exit
// code: N] … then [the shell exited, so it was reset: …]", and the next call
// starts a fresh shell.
func TestShellExitIsTold(t *testing.T) {
	f := newFixture(t, Config{})
	f.run("x=old")
	res := f.run("exit 3")
	if !strings.HasPrefix(res.Text, "[exit code: 3]\n[the shell exited, so it was reset: its ") || res.Structured["shellReset"] != true {
		t.Fatalf("exit 3: %q %v", res.Text, res.Structured)
	}
	f.expect("echo \"x=$x\"", "x=\n")
}
