package bash

import (
	"os"

	"github.com/shellport/shellport/internal/spawnhelper"
)

// launchSpec is one shell to start.
type launchSpec struct {
	path           string
	argv           []string
	dir            string
	env            []string
	stdout, stderr *os.File
	fd3            *os.File // the command text, for a trampoline; or nil
	// restrict is the session's sandbox for this shell: applied by the
	// supervisor (Linux) or as a wrapper command (macOS).
	restrict spawnhelper.Restrictions
}

// launched is a started shell.
type launched interface {
	// wait returns once the shell has ended and every process it started
	// is gone, with the shell's exit status.
	wait() (*os.ProcessState, error)
	// killAll sends SIGKILL to every process the command started.
	killAll()
}
