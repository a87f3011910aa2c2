//go:build !linux && !darwin

package sandbox

import "github.com/shellport/shellport/internal/spawnhelper"

// Restrictions is the zero value: no backend exists here, so no policy
// resolves to a restricted one (Resolve fails or warns instead).
func (p *Policy) Restrictions(...string) (spawnhelper.Restrictions, error) {
	return spawnhelper.Restrictions{}, nil
}

func (p *Policy) closeRuleset() {}
