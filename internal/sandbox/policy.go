package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Policy is one session's sandbox, resolved: the mode in force, the
// directories it may write (absolute, symbolic links resolved), and how
// this machine enforces it. A nil *Policy is "no sandbox configured":
// full access, nothing reported. Its methods are safe for concurrent use.
type Policy struct {
	mode       string
	network    bool
	writable   []string // workspace-write: cwd, writable roots, temporary directories
	named      []string // the same as configured (before resolving links), for messages
	protected  []string // absolute
	backend    string
	unenforced []string // what onUnsupported "warn" let go
	// What to apply, decided from the support probe.
	landlock bool
	seccomp  bool
	seatbelt bool
	abi      int

	filesOnce sync.Once
	files     *workers // the confined threads of Run (Linux)
	filesErr  error

	// The Landlock ruleset of one-shot spawns, built once (Linux).
	rulesetOnce sync.Once
	rulesetMu   sync.Mutex
	ruleset     *os.File
	rulesetErr  error
}

// Request is what Resolve needs to know about a session.
type Request struct {
	// Default is the runtime config's sandbox; Session the session's
	// request (nil: none).
	Default Config
	Session *Config
	// Cwd is the session's absolute working directory; Env its
	// environment (for $TMPDIR).
	Cwd string
	Env []string
	// Where names the request in messages ("session/new").
	Where string
}

// Resolve merges a session's request over the runtime's default, checks
// that it only narrows the default (unless the default allows widening),
// resolves its paths and decides how this machine enforces it. It returns
// nil, nil when neither sets anything. A policy this machine cannot
// enforce fails with an error wrapping ErrUnsupported, unless it asks for
// onUnsupported "warn".
func Resolve(r Request) (*Policy, error) {
	if r.Default.IsZero() && (r.Session == nil || r.Session.IsZero()) {
		return nil, nil
	}
	where := r.Where + "sandbox"
	if r.Where != "" {
		where = r.Where + ": sandbox"
	}
	s := merge(r.Default, r.Session)
	p := &Policy{mode: s.mode, network: s.network || s.mode == ModeFullAccess}
	if r.Session != nil && !r.Default.AllowWidening {
		if err := checkNarrows(r.Default, s, r.Cwd, where); err != nil {
			return nil, err
		}
	}
	if p.mode == ModeFullAccess {
		p.backend = BackendNone
		return p, nil
	}
	if p.mode == ModeWorkspaceWrite {
		if err := p.addWritable(r.Cwd, true, where); err != nil {
			return nil, err
		}
		for _, root := range s.roots {
			if err := p.addWritable(root, true, where); err != nil {
				return nil, err
			}
		}
		if s.writableTmp {
			for _, dir := range tempDirs(r.Env) {
				_ = p.addWritable(dir, false, where) // a missing temporary directory is no error
			}
		}
		for _, pr := range s.protected {
			if filepath.IsAbs(pr) {
				p.protected = append(p.protected, resolved(filepath.Clean(pr)))
				continue
			}
			for _, w := range p.writable {
				p.protected = append(p.protected, filepath.Join(w, pr))
			}
		}
	}
	if err := p.enforce(probe(), s); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return p, nil
}

// checkNarrows refuses a merged request that asks for more than the
// runtime's default: a wider mode, network, temporary directories or
// writable roots outside the default's (its roots, the session's cwd and,
// when the default has them, the temporary directories), or
// onUnsupported "warn".
func checkNarrows(def Config, s settings, cwd, where string) error {
	d := merge(def, nil)
	widen := func(what string) error {
		return fmt.Errorf("%s: %s is wider than the runtime's sandbox (%s), and the runtime config does not set allowWidening", where, what, d.mode)
	}
	if rank(s.mode) > rank(d.mode) {
		return widen("mode " + s.mode)
	}
	if d.mode == ModeFullAccess || s.mode == ModeFullAccess {
		return nil
	}
	switch {
	case s.network && !d.network:
		return widen("network access")
	case s.onUnsupported == OnUnsupportedWarn && d.onUnsupported != OnUnsupportedWarn:
		return widen(`onUnsupported "warn"`)
	case s.mode == ModeWorkspaceWrite && s.writableTmp && !d.writableTmp:
		return widen("writable temporary directories")
	}
	if s.mode != ModeWorkspaceWrite {
		return nil
	}
	allowed := []string{resolved(cwd)}
	if d.mode == ModeWorkspaceWrite {
		for _, root := range d.roots {
			allowed = append(allowed, resolved(root))
		}
		if d.writableTmp {
			for _, dir := range tempDirs(nil) {
				allowed = append(allowed, resolved(dir))
			}
		}
	}
	for _, root := range s.roots {
		if !insideAny(resolved(root), allowed) {
			return widen("writable root " + root)
		}
	}
	return nil
}

// addWritable adds dir (and its symlink-resolved form) to the writable
// set. A path that does not exist is an error when required.
func (p *Policy) addWritable(path string, required bool, where string) error {
	path = filepath.Clean(path)
	if _, err := os.Stat(path); err != nil {
		if !required {
			return err
		}
		return fmt.Errorf("%s: writable root %s: %w", where, path, unwrapPath(err))
	}
	real := resolved(path)
	if slices.Contains(p.writable, real) {
		return nil
	}
	p.writable = append(p.writable, real)
	p.named = append(p.named, path)
	return nil
}

// tempDirs lists the temporary directories a session's commands use:
// /tmp, the runtime's, and $TMPDIR in the session's environment.
func tempDirs(env []string) []string {
	dirs := []string{"/tmp", os.TempDir()}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok && filepath.IsAbs(v) {
			dirs = append(dirs, v)
		}
	}
	return dirs
}

// enforce decides how the machine enforces the policy, and fails (or,
// with onUnsupported "warn", notes) what it cannot.
func (p *Policy) enforce(sup Support, s settings) error {
	p.backend = sup.Backend
	var missing []string
	switch sup.Backend {
	case BackendLandlock:
		p.landlock, p.abi = true, sup.LandlockABI
		p.seccomp = sup.Seccomp
		if !sup.Seccomp && !p.network {
			missing = append(missing, "network off (seccomp filters are not available: "+sup.Reason+")")
		}
		if len(p.protected) > 0 {
			missing = append(missing, "protected paths (Landlock cannot keep a path read-only inside a writable root)")
		}
	case BackendSeatbelt:
		p.seatbelt = true
	default:
		missing = append(missing, "every restriction ("+sup.Reason+")")
		p.backend = BackendNone
	}
	if len(missing) == 0 {
		return nil
	}
	if s.onUnsupported != OnUnsupportedWarn {
		return fmt.Errorf("%s %w: %s; set onUnsupported to %q to run with what this machine can enforce",
			p.mode, ErrUnsupported, strings.Join(missing, "; "), OnUnsupportedWarn)
	}
	p.unenforced = missing
	if sup.Backend == BackendLandlock && len(p.protected) > 0 {
		p.protected = nil // the writable roots are still confined; only their protected parts are not
	}
	return nil
}

// Mode is the mode in force: "read-only", "workspace-write" or
// "full-access".
func (p *Policy) Mode() string {
	if p == nil {
		return ModeFullAccess
	}
	return p.mode
}

// Restricted reports whether the policy restricts anything: a restricted
// mode that this machine enforces, at least in part.
func (p *Policy) Restricted() bool {
	return p != nil && p.mode != ModeFullAccess && p.backend != BackendNone
}

// Network reports whether commands may open network sockets.
func (p *Policy) Network() bool { return p == nil || p.network }

// Writable lists the paths commands may change in workspace-write, as
// configured (the session's directory first).
func (p *Policy) Writable() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.named)
}

// Meta is what every result of the session carries as "sandbox": the mode
// in force, network, the writable paths and the backend, and what is not
// enforced when onUnsupported "warn" let something go. Nil for a nil
// Policy.
func (p *Policy) Meta() map[string]any {
	if p == nil {
		return nil
	}
	m := map[string]any{"mode": p.mode, "network": p.network, "backend": p.backend}
	if p.mode == ModeWorkspaceWrite {
		m["writable"] = p.Writable()
	}
	if len(p.unenforced) > 0 {
		m["unenforced"] = slices.Clone(p.unenforced)
	}
	return m
}

// Describe is the line a tool description gains when the policy restricts
// anything: where the model may write and whether it has network. sessionDir
// stands for the session's directory when the line describes the runtime's
// default rather than one session ("" lists the paths as they are).
func (p *Policy) Describe(sessionDir string) string {
	if !p.Restricted() {
		return ""
	}
	net := "no network access"
	if p.network {
		net = "network access is allowed"
	}
	if p.mode == ModeReadOnly {
		return fmt.Sprintf("Sandbox (read-only): files cannot be created or changed anywhere (the terminal and /dev/null excepted); %s.", net)
	}
	where := p.Writable()
	if sessionDir != "" && len(where) > 0 {
		where[0] = sessionDir
	}
	return fmt.Sprintf("Sandbox (workspace-write): files may be created or changed only under %s; %s.", listing(where), net)
}

func listing(paths []string) string {
	switch len(paths) {
	case 0:
		return "no directory"
	case 1:
		return paths[0]
	}
	return strings.Join(paths[:len(paths)-1], ", ") + " and " + paths[len(paths)-1]
}

// PathPolicy returns the check the file tools run before they change a
// path (with the path as named and again with links resolved): nil when
// the policy restricts nothing. Its errors name the path and the mode and
// reach the model as they are. Reads are allowed everywhere.
func (p *Policy) PathPolicy() func(path string, write bool) error {
	if !p.Restricted() {
		return nil
	}
	return p.allow
}

func (p *Policy) allow(path string, write bool) error {
	if !write {
		return nil
	}
	if p.mode == ModeReadOnly {
		return fmt.Errorf("cannot change %s: this session's sandbox is read-only, so no file may be created or changed", path)
	}
	for _, pr := range p.protected {
		if inside(path, pr) {
			return fmt.Errorf("cannot change %s: this session's sandbox (workspace-write) keeps %s read-only", path, pr)
		}
	}
	if insideAny(path, p.writable) || insideAny(path, p.named) {
		return nil
	}
	return fmt.Errorf("cannot change %s: this session's sandbox is workspace-write, which allows changes only under %s", path, listing(p.Writable()))
}

// Close releases what the policy holds (its confined threads). A closed
// policy's Run fails; Restrictions still work.
func (p *Policy) Close() {
	if p == nil {
		return
	}
	p.filesOnce.Do(func() { p.filesErr = errClosed })
	if p.files != nil {
		p.files.close()
	}
	p.closeRuleset()
}

var errClosed = errors.New("sandbox: the session's policy was replaced or closed")

func inside(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func insideAny(path string, roots []string) bool {
	for _, r := range roots {
		if inside(path, r) {
			return true
		}
	}
	return false
}

// resolved is path with its symbolic links resolved, or path when that
// fails (it does not exist yet).
func resolved(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
