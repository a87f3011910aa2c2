//go:build linux

package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/spawnhelper"
)

// Restrictions returns what a spawn of this policy applies in the
// program's process (see spawnhelper.Restrictions): a Landlock ruleset
// with the policy's rules, plus rights to open files in private (the
// persistent shell's private directory) and, from ABI 6, the signal scope
// (a command cannot signal its supervisor, the runtime or other sessions)
// and, with network off, the abstract UNIX socket scope; and the seccomp
// program. The caller closes it once the program has started. A policy
// that restricts nothing returns the zero value.
func (p *Policy) Restrictions(private ...string) (r spawnhelper.Restrictions, err error) {
	if !p.Restricted() {
		return r, nil
	}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if p.landlock {
		if len(private) > 0 {
			r.Landlock, err = buildRuleset(p.abi, p.scopes(), p.grants(private))
		} else {
			r.Landlock, err = p.sharedRuleset()
		}
		if err != nil {
			return r, err
		}
	}
	if p.seccomp {
		if r.Seccomp, err = seccompFile(p.network); err != nil {
			return r, err
		}
	}
	return r, nil
}

// scopes are the Landlock scopes of a spawn: from ABI 6 signals (a command
// cannot signal its supervisor, the runtime or other sessions) and, with
// network off, abstract UNIX sockets.
func (p *Policy) scopes() uint64 {
	if p.abi < 6 {
		return 0
	}
	s := uint64(unix.LANDLOCK_SCOPE_SIGNAL)
	if !p.network {
		s |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	return s
}

// sharedRuleset returns a duplicate of the policy's spawn ruleset, built
// on first use: every one-shot command of the session restricts itself
// with the same rules, and a ruleset is only read by landlock_restrict_self.
func (p *Policy) sharedRuleset() (*os.File, error) {
	p.rulesetOnce.Do(func() {
		p.ruleset, p.rulesetErr = buildRuleset(p.abi, p.scopes(), p.grants(nil))
	})
	if p.rulesetErr != nil {
		return nil, p.rulesetErr
	}
	p.rulesetMu.Lock()
	defer p.rulesetMu.Unlock()
	if p.ruleset == nil {
		return nil, errClosed
	}
	fd, err := unix.FcntlInt(p.ruleset.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("sandbox: duplicate the Landlock ruleset: %w", err)
	}
	return os.NewFile(uintptr(fd), "landlock-ruleset"), nil
}

// closeRuleset closes the shared spawn ruleset (Policy.Close).
func (p *Policy) closeRuleset() {
	p.rulesetOnce.Do(func() { p.rulesetErr = errClosed })
	p.rulesetMu.Lock()
	defer p.rulesetMu.Unlock()
	if p.ruleset != nil {
		_ = p.ruleset.Close() // best effort: spawns hold their own duplicates
		p.ruleset = nil
	}
}
