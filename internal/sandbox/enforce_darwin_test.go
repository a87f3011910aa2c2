//go:build darwin

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The Seatbelt profile, run for real under /usr/bin/sandbox-exec (the
// macOS CI job runs this; Linux only checks the profile's text).

func seatbeltRun(t *testing.T, p *Policy, dir, script string) string {
	t.Helper()
	r, err := p.Restrictions()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Wrapper) == 0 {
		t.Fatalf("no wrapper for %v", p.Meta())
	}
	argv := append(append([]string{}, r.Wrapper[1:]...), "/bin/bash", "-c", script)
	cmd := exec.Command(r.Wrapper[0], argv...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func TestSeatbeltHoldsWritesAndNetwork(t *testing.T) {
	if s := Probe(); s.Backend != BackendSeatbelt {
		t.Skipf("no sandbox-exec here: %s", s.Reason)
	}
	ws, out := t.TempDir(), t.TempDir()
	off := false
	p, err := Resolve(Request{Session: &Config{Mode: ModeWorkspaceWrite, WritableTmp: &off}, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	got := seatbeltRun(t, p, ws, strings.Join([]string{
		`try() { if eval "$2" 2>/dev/null; then echo "$1:ok"; else echo "$1:denied"; fi; }`,
		`try inside "echo x > ` + ws + `/in"`,
		`try outside "echo x > ` + out + `/out"`,
		`try devnull "echo x > /dev/null"`,
		`try net "exec 3<>/dev/tcp/127.0.0.1/` + port + `"`,
		`try read "cat /etc/hosts >/dev/null"`,
	}, "\n"))
	for _, want := range []string{"inside:ok", "outside:denied", "devnull:ok", "net:denied", "read:ok"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %s in\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "out")); err == nil {
		t.Fatal("a file was written outside")
	}
}
