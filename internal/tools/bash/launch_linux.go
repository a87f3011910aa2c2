//go:build linux

package bash

import (
	"context"
	"errors"
	"os"

	"github.com/shellport/shellport/internal/spawnhelper"
)

// errNoHelper refuses to run a command unsupervised.
var errNoHelper = errors.New("no " + spawnhelper.Name + " is configured, and on linux commands run only under it")

// launch starts the shell under its own supervisor (internal/spawnhelper):
// a child subreaper that kills every process the command started, however
// it detached, when the shell ends, when killAll asks, or when the runtime
// dies. The supervisor is the executor's spare when one is ready: exec'd
// before the command came, it only receives the command's spec.
func (e *executor) launch(s launchSpec) (launched, int, error) {
	if e.set.spawnHelper == "" {
		return nil, 0, errNoHelper
	}
	p, err := e.spares.Start(context.Background(), spawnhelper.Spec{
		Helper:   e.set.spawnHelper,
		Path:     s.path,
		Args:     s.argv,
		Dir:      s.dir,
		Env:      s.env,
		Stdout:   s.stdout,
		Stderr:   s.stderr,
		FD3:      s.fd3,
		Restrict: s.restrict,
	})
	if err != nil {
		return nil, 0, err
	}
	return supervised{p}, p.Pid(), nil
}

type supervised struct{ p *spawnhelper.Process }

func (s supervised) wait() (*os.ProcessState, error) { return s.p.Wait() }

func (s supervised) killAll() { _ = s.p.KillAll() } // best effort: it may have ended
