//go:build linux

package sandbox

import (
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
		var scoped uint64
		if p.abi >= 6 {
			scoped = unix.LANDLOCK_SCOPE_SIGNAL
			if !p.network {
				scoped |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
			}
		}
		if r.Landlock, err = buildRuleset(p.abi, scoped, p.grants(private)); err != nil {
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
