package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func on() *bool  { b := true; return &b }
func off() *bool { b := false; return &b }

// withSupport makes Resolve see sup for the rest of the test.
func withSupport(t *testing.T, sup Support) {
	t.Helper()
	old := testOnlySupport
	testOnlySupport = &sup
	t.Cleanup(func() { testOnlySupport = old })
}

var landlockHere = Support{Backend: BackendLandlock, LandlockABI: 7, Seccomp: true, Files: "landlock-thread"}

func resolve(t *testing.T, def Config, req *Config, cwd string) *Policy {
	t.Helper()
	p, err := Resolve(Request{Default: def, Session: req, Cwd: cwd, Where: "session/new"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func resolveFails(t *testing.T, def Config, req *Config, cwd string, want ...string) error {
	t.Helper()
	_, err := Resolve(Request{Default: def, Session: req, Cwd: cwd, Where: "session/new"})
	if err == nil {
		t.Fatalf("Resolve(%+v over %+v) succeeded", req, def)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not say %q", err, w)
		}
	}
	return err
}

func TestCheckRefusesMalformedConfig(t *testing.T) {
	for _, tc := range []struct {
		c       Config
		session bool
		want    string
	}{
		{Config{Mode: "danger-full-access"}, false, `unknown mode "danger-full-access"`},
		{Config{WritableRoots: []string{"rel/dir"}}, false, `writable root "rel/dir" is not absolute`},
		{Config{WritableRoots: []string{""}}, false, "empty path"},
		{Config{WritableRoots: []string{"/a\x00b"}}, false, "NUL"},
		{Config{Protected: []string{"../x"}}, false, "leaves the directory"},
		{Config{OnUnsupported: "ignore"}, false, `onUnsupported is "ignore"`},
		{Config{AllowWidening: true}, true, "allowWidening is a setting of the runtime config"},
	} {
		err := tc.c.Check("sandbox", tc.session)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%+v) = %v, want %q", tc.c, err, tc.want)
		}
	}
	if err := (Config{Mode: ModeWorkspaceWrite, WritableRoots: []string{"/x"}, Protected: []string{".git"}}).Check("sandbox", true); err != nil {
		t.Fatal(err)
	}
}

func TestNothingConfiguredIsNoPolicy(t *testing.T) {
	p, err := Resolve(Request{Cwd: "/"})
	if p != nil || err != nil {
		t.Fatalf("Resolve of nothing = %v, %v", p, err)
	}
	if p.Restricted() || p.Mode() != ModeFullAccess || p.Meta() != nil || p.PathPolicy() != nil || p.Describe("") != "" {
		t.Fatal("a nil policy restricts or reports something")
	}
	if err := p.Run(func() {}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkspaceWriteWritableSet(t *testing.T) {
	withSupport(t, landlockHere)
	cwd, root := t.TempDir(), t.TempDir()
	p := resolve(t, Config{}, &Config{Mode: ModeWorkspaceWrite, WritableRoots: []string{root}}, cwd)
	w := p.Writable()
	if len(w) < 3 || w[0] != cwd || w[1] != root || !contains(w, "/tmp") {
		t.Fatalf("writable %v: want the cwd, the root, then the temporary directories", w)
	}
	if p.Network() || p.Meta()["network"] != false || p.Meta()["mode"] != ModeWorkspaceWrite {
		t.Fatalf("meta %v", p.Meta())
	}
	p = resolve(t, Config{}, &Config{Mode: ModeWorkspaceWrite, WritableTmp: off(), Network: on()}, cwd)
	if w := p.Writable(); len(w) != 1 || w[0] != cwd || !p.Network() {
		t.Fatalf("writableTmp false, network on: writable %v, network %v", w, p.Network())
	}
	resolveFails(t, Config{}, &Config{Mode: ModeWorkspaceWrite, WritableRoots: []string{filepath.Join(root, "missing")}}, cwd,
		"session/new: sandbox: writable root", "missing: no such file or directory")
}

// A session narrows the runtime's sandbox; widening needs allowWidening.
func TestSessionMayOnlyNarrow(t *testing.T) {
	withSupport(t, landlockHere)
	cwd, root, other := t.TempDir(), t.TempDir(), t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	def := Config{Mode: ModeWorkspaceWrite, WritableRoots: []string{root}, WritableTmp: off()}
	for _, tc := range []struct {
		req  Config
		want string
	}{
		{Config{Mode: ModeFullAccess}, "mode full-access is wider than the runtime's sandbox (workspace-write)"},
		{Config{Network: on()}, "network access is wider"},
		{Config{WritableTmp: on()}, "writable temporary directories is wider"},
		{Config{WritableRoots: []string{other}}, "writable root " + other + " is wider"},
		{Config{OnUnsupported: OnUnsupportedWarn}, `onUnsupported "warn" is wider`},
	} {
		resolveFails(t, def, &tc.req, cwd, tc.want, "allowWidening")
	}
	p := resolve(t, def, &Config{WritableRoots: []string{sub}}, cwd)
	if w := p.Writable(); len(w) != 2 || w[1] != sub {
		t.Fatalf("a root inside the default's: %v", w)
	}
	if p := resolve(t, def, &Config{Mode: ModeReadOnly}, cwd); p.Mode() != ModeReadOnly || p.Writable() != nil {
		t.Fatalf("read-only under workspace-write: %v", p.Meta())
	}
	def.AllowWidening = true
	if p := resolve(t, def, &Config{Mode: ModeFullAccess}, cwd); p.Restricted() || p.Meta()["mode"] != ModeFullAccess {
		t.Fatalf("widening allowed: %v", p.Meta())
	}
	// Under the default full access, anything goes.
	if p := resolve(t, Config{}, &Config{Mode: ModeReadOnly, Network: on()}, cwd); !p.Network() || p.Mode() != ModeReadOnly {
		t.Fatalf("%v", p.Meta())
	}
}

// Issue 12: a policy the machine cannot enforce fails closed, with a clear
// error, unless it asks for onUnsupported "warn" — and then every result
// says what is not enforced.
func TestUnsupportedFailsClosed(t *testing.T) {
	cwd := t.TempDir()
	for _, sup := range []Support{
		{Backend: BackendNone, LandlockABI: 2, Reason: "this kernel's Landlock is ABI 2"},
		{Backend: BackendNone, Reason: "this kernel has no Landlock"},
	} {
		withSupport(t, sup)
		err := resolveFails(t, Config{}, &Config{Mode: ModeWorkspaceWrite}, cwd, "workspace-write cannot be enforced on this machine", sup.Reason, `onUnsupported to "warn"`)
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("%v does not wrap ErrUnsupported", err)
		}
		p := resolve(t, Config{}, &Config{Mode: ModeReadOnly, OnUnsupported: OnUnsupportedWarn}, cwd)
		if p.Restricted() || p.Mode() != ModeReadOnly || p.Describe("") != "" {
			t.Fatalf("an unenforced policy claims to restrict: %v", p.Meta())
		}
		if u, _ := p.Meta()["unenforced"].([]string); len(u) != 1 || !strings.Contains(u[0], sup.Reason) {
			t.Fatalf("meta does not say what is unenforced: %v", p.Meta())
		}
	}
	withSupport(t, Support{Backend: BackendLandlock, LandlockABI: 7, Reason: "no seccomp"})
	resolveFails(t, Config{}, &Config{Mode: ModeReadOnly}, cwd, "network off (seccomp filters are not available")
	if p := resolve(t, Config{}, &Config{Mode: ModeReadOnly, Network: on()}, cwd); !p.Restricted() {
		t.Fatal("network on needs no seccomp")
	}
}

// Landlock cannot keep a path read-only inside a writable root, so
// protected paths are refused there rather than quietly ignored.
func TestProtectedRefusedOnLandlock(t *testing.T) {
	withSupport(t, landlockHere)
	cwd := t.TempDir()
	resolveFails(t, Config{}, &Config{Mode: ModeWorkspaceWrite, Protected: []string{".git"}}, cwd, "protected paths (Landlock cannot")
	p := resolve(t, Config{}, &Config{Mode: ModeWorkspaceWrite, Protected: []string{".git"}, OnUnsupported: OnUnsupportedWarn}, cwd)
	if !p.Restricted() || p.Meta()["unenforced"] == nil {
		t.Fatalf("%v", p.Meta())
	}
}

func TestPathPolicyNamesThePathAndTheMode(t *testing.T) {
	withSupport(t, landlockHere)
	cwd := t.TempDir()
	p := resolve(t, Config{}, &Config{Mode: ModeWorkspaceWrite, WritableTmp: off()}, cwd)
	allow := p.PathPolicy()
	if err := allow(filepath.Join(cwd, "a", "b"), true); err != nil {
		t.Fatal(err)
	}
	if err := allow("/etc/passwd", false); err != nil {
		t.Fatalf("reads are allowed everywhere: %v", err)
	}
	err := allow("/etc/passwd", true)
	if err == nil || err.Error() != "cannot change /etc/passwd: this session's sandbox is workspace-write, which allows changes only under "+cwd {
		t.Fatalf("write outside: %v", err)
	}
	ro := resolve(t, Config{}, &Config{Mode: ModeReadOnly}, cwd).PathPolicy()
	if err := ro(filepath.Join(cwd, "x"), true); err == nil || !strings.Contains(err.Error(), "cannot change "+cwd+"/x: this session's sandbox is read-only") {
		t.Fatalf("read-only: %v", err)
	}
	withSupport(t, Support{Backend: BackendSeatbelt, Files: "path-checks"})
	pr := resolve(t, Config{}, &Config{Mode: ModeWorkspaceWrite, WritableTmp: off(), Protected: []string{".git"}}, cwd).PathPolicy()
	if err := pr(filepath.Join(cwd, ".git", "config"), true); err == nil || !strings.Contains(err.Error(), "keeps "+filepath.Join(cwd, ".git")+" read-only") {
		t.Fatalf("protected: %v", err)
	}
}

func TestDescribeIsOneLine(t *testing.T) {
	withSupport(t, landlockHere)
	cwd, root := t.TempDir(), t.TempDir()
	p := resolve(t, Config{}, &Config{Mode: ModeWorkspaceWrite, WritableRoots: []string{root}, WritableTmp: off()}, cwd)
	if got, want := p.Describe(""), "Sandbox (workspace-write): files may be created or changed only under "+cwd+" and "+root+"; no network access."; got != want {
		t.Fatalf("Describe = %q\nwant %q", got, want)
	}
	if got := p.Describe("the session's directory"); !strings.Contains(got, "only under the session's directory and "+root) {
		t.Fatalf("Describe for the default = %q", got)
	}
	ro := resolve(t, Config{}, &Config{Mode: ModeReadOnly, Network: on()}, cwd)
	if got := ro.Describe(""); got != "Sandbox (read-only): files cannot be created or changed anywhere (the terminal and /dev/null excepted); network access is allowed." {
		t.Fatalf("Describe = %q", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
