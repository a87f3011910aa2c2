package sandbox

import (
	"path/filepath"
	"testing"

	"github.com/shellport/shellport/internal/strictjson"
)

// FuzzResolve feeds the sandbox member of session/new (over a runtime
// default) through the decoder, Check and Resolve: nothing panics, and a
// policy that resolves keeps its promises — a restricted one refuses a
// write outside, describes itself, and reports its mode.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"mode":"read-only"}`,
		`{"mode":"workspace-write","writableRoots":["/tmp"],"network":true}`,
		`{"mode":"workspace-write","writableTmp":false,"protected":[".git"],"onUnsupported":"warn"}`,
		`{"mode":"full-access","allowWidening":true}`,
		`{"mode":"workspace-write","writableRoots":["relative"]}`,
	} {
		f.Add([]byte(seed), []byte(`{"mode":"workspace-write","allowWidening":true}`))
		f.Add([]byte(seed), []byte(`{}`))
	}
	cwd := f.TempDir()
	f.Fuzz(func(t *testing.T, session, runtime []byte) {
		old := testOnlySupport
		sup := landlockHere
		testOnlySupport = &sup
		defer func() { testOnlySupport = old }()
		var def, req Config
		if strictjson.Decode(runtime, &def) != nil || def.Check("sandbox", false) != nil {
			return
		}
		if strictjson.Decode(session, &req) != nil || req.Check("session/new: sandbox", true) != nil {
			return
		}
		p, err := Resolve(Request{Default: def, Session: &req, Cwd: cwd})
		if err != nil || p == nil {
			return
		}
		defer p.Close()
		switch p.Mode() {
		case ModeReadOnly, ModeWorkspaceWrite, ModeFullAccess:
		default:
			t.Fatalf("mode %q", p.Mode())
		}
		if p.Meta()["mode"] != p.Mode() {
			t.Fatalf("meta %v for mode %s", p.Meta(), p.Mode())
		}
		if (p.Describe("") != "") != p.Restricted() {
			t.Fatalf("restricted %v but description %q", p.Restricted(), p.Describe(""))
		}
		if !p.Restricted() {
			return
		}
		allow := p.PathPolicy()
		if allow("/etc/shellport-fuzz", true) == nil && !insideAny("/etc/shellport-fuzz", p.writable) {
			t.Fatalf("a restricted policy allows a write outside: %v", p.Meta())
		}
		inCwd := filepath.Join(cwd, "f")
		if p.Mode() == ModeReadOnly && allow(inCwd, true) == nil {
			t.Fatal("read-only allows a write")
		}
		if p.Mode() == ModeWorkspaceWrite && len(p.protected) == 0 && allow(inCwd, true) != nil {
			t.Fatalf("workspace-write refuses its own cwd: %v", p.Meta())
		}
	})
}
