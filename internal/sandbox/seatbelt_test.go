package sandbox

import (
	"strings"
	"testing"
)

// The macOS profile cannot run here; it is a pure function of the policy,
// so what it allows is checked as text (the macOS CI job runs it).
func TestSeatbeltProfile(t *testing.T) {
	withSupport(t, Support{Backend: BackendSeatbelt, Files: "path-checks"})
	cwd := t.TempDir()
	p := resolve(t, Config{}, &Config{Mode: ModeWorkspaceWrite, WritableTmp: off(), Protected: []string{".git"}}, cwd)
	profile, params := SeatbeltProfile(p, []string{"/private/tmp/shellport-bash-1"})
	for _, want := range []string{
		"(deny default)",
		"(allow signal (target same-sandbox))",
		"(allow file-read*)",
		`(literal "/dev/ptmx")`,
		`(regex #"^/dev/ttys[0-9]+$")`,
		`(literal "/dev/null")`,
		`(require-any (subpath (param "WRITABLE_0")))`,
		`(require-not (subpath (param "PROTECTED_0")))`,
		`(allow file-write-data (subpath (param "PRIVATE_0")))`,
		"(allow network* (remote unix-socket))",
	} {
		if !strings.Contains(profile, want) {
			t.Errorf("profile lacks %s:\n%s", want, profile)
		}
	}
	if strings.Contains(profile, "(allow network*)\n") || strings.Contains(profile, cwd) {
		t.Errorf("network allowed, or a path spliced into the profile:\n%s", profile)
	}
	want := []string{"-DWRITABLE_0=" + cwd, "-DPROTECTED_0=" + cwd + "/.git", "-DPRIVATE_0=/private/tmp/shellport-bash-1"}
	if strings.Join(params, " ") != strings.Join(want, " ") {
		t.Errorf("params %q, want %q", params, want)
	}
	if n := strings.Count(profile, "("); n != strings.Count(profile, ")") {
		t.Errorf("unbalanced parentheses:\n%s", profile)
	}

	ro := resolve(t, Config{}, &Config{Mode: ModeReadOnly, Network: on()}, cwd)
	profile, params = SeatbeltProfile(ro, nil)
	if strings.Contains(profile, "WRITABLE") || len(params) != 0 || !strings.Contains(profile, "(allow network*)\n") {
		t.Errorf("read-only with network:\n%s %q", profile, params)
	}
	argv := seatbeltArgv(ro, nil)
	if argv[0] != "/usr/bin/sandbox-exec" || argv[1] != "-p" || argv[len(argv)-1] != "--" {
		t.Errorf("argv %q", argv)
	}
}
