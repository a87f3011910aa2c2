package bash

import "os"

// launchSpec is one shell to start.
type launchSpec struct {
	path           string
	argv           []string
	dir            string
	env            []string
	stdout, stderr *os.File
	fd3            *os.File // the command text, for a trampoline; or nil
}

// launched is a started shell.
type launched interface {
	// wait returns once the shell has ended and every process it started
	// is gone, with the shell's exit status.
	wait() (*os.ProcessState, error)
	// killAll sends SIGKILL to every process the command started.
	killAll()
}
