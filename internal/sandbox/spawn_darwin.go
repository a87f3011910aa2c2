//go:build darwin

package sandbox

import "github.com/shellport/shellport/internal/spawnhelper"

// Restrictions returns what a spawn of this policy applies: the argv
// prefix that runs the program under sandbox-exec with the policy's
// Seatbelt profile (see SeatbeltProfile), letting it open files in private
// (the persistent shell's private directory) for writing. A policy that
// restricts nothing returns the zero value.
func (p *Policy) Restrictions(private ...string) (spawnhelper.Restrictions, error) {
	if !p.Restricted() || !p.seatbelt {
		return spawnhelper.Restrictions{}, nil
	}
	return spawnhelper.Restrictions{Wrapper: seatbeltArgv(p, private)}, nil
}

func (p *Policy) closeRuleset() {}
