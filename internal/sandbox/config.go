package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Check validates c as written, before any path is looked at: known
// names, absolute writable roots, sensible protected paths. where names
// the config member in messages ("sandbox", "session/new: sandbox").
// session reports a session's request, which may not set AllowWidening.
func (c Config) Check(where string, session bool) error {
	switch c.Mode {
	case "", ModeReadOnly, ModeWorkspaceWrite, ModeFullAccess:
	default:
		return fmt.Errorf("%s: unknown mode %q (want %q, %q or %q)", where, c.Mode, ModeReadOnly, ModeWorkspaceWrite, ModeFullAccess)
	}
	for _, r := range c.WritableRoots {
		switch {
		case r == "":
			return fmt.Errorf("%s: writableRoots holds an empty path", where)
		case strings.IndexByte(r, 0) >= 0:
			return fmt.Errorf("%s: writable root %q holds a NUL byte", where, r)
		case !filepath.IsAbs(r):
			return fmt.Errorf("%s: writable root %q is not absolute", where, r)
		}
	}
	for _, p := range c.Protected {
		switch {
		case p == "" || filepath.Clean(p) == ".":
			return fmt.Errorf("%s: protected holds an empty path", where)
		case strings.IndexByte(p, 0) >= 0:
			return fmt.Errorf("%s: protected path %q holds a NUL byte", where, p)
		case !filepath.IsAbs(p) && strings.HasPrefix(filepath.Clean(p), ".."):
			return fmt.Errorf("%s: protected path %q leaves the directory it is relative to", where, p)
		}
	}
	switch c.OnUnsupported {
	case "", OnUnsupportedFail, OnUnsupportedWarn:
	default:
		return fmt.Errorf("%s: onUnsupported is %q (want %q or %q)", where, c.OnUnsupported, OnUnsupportedFail, OnUnsupportedWarn)
	}
	if session && c.AllowWidening {
		return fmt.Errorf("%s: allowWidening is a setting of the runtime config, not of a session", where)
	}
	return nil
}

// IsZero reports whether c sets nothing.
func (c Config) IsZero() bool {
	return c.Mode == "" && c.WritableRoots == nil && c.Network == nil && c.WritableTmp == nil &&
		c.Protected == nil && c.OnUnsupported == "" && !c.AllowWidening
}

// settings is a Config merged and defaulted: every field has its value.
type settings struct {
	mode          string
	roots         []string
	network       bool
	writableTmp   bool
	protected     []string
	onUnsupported string
}

// merge lays req over def field by field and fills in the defaults. The
// protected paths of both count.
func merge(def Config, req *Config) settings {
	s := settings{mode: ModeFullAccess, roots: def.WritableRoots, writableTmp: true, onUnsupported: OnUnsupportedFail}
	apply := func(c Config) {
		if c.Mode != "" {
			s.mode = c.Mode
		}
		if c.WritableRoots != nil {
			s.roots = c.WritableRoots
		}
		if c.Network != nil {
			s.network = *c.Network
		}
		if c.WritableTmp != nil {
			s.writableTmp = *c.WritableTmp
		}
		s.protected = append(s.protected, c.Protected...)
		if c.OnUnsupported != "" {
			s.onUnsupported = c.OnUnsupported
		}
	}
	apply(def)
	if req != nil {
		apply(*req)
	}
	return s
}

// rank orders modes from the narrowest.
func rank(mode string) int {
	switch mode {
	case ModeReadOnly:
		return 0
	case ModeWorkspaceWrite:
		return 1
	}
	return 2
}
