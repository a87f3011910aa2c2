//go:build unix && !linux

package bash

import (
	"os"
	"syscall"
)

// launch starts the shell directly as the leader of a new session and so
// of a new process group: signals to the group reach its grandchildren,
// and it has no controlling terminal to read from. There is no child
// subreaper here, so processes that leave the group (setsid, double forks
// into another group) are out of reach; see docs/TOOLS.md.
func (e *executor) launch(s launchSpec) (launched, int, error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, 0, err
	}
	defer null.Close()
	files := []*os.File{null, s.stdout, s.stderr}
	if s.fd3 != nil {
		files = append(files, s.fd3)
	}
	path, argv := s.path, s.argv
	if w := s.restrict.Wrapper; len(w) > 0 {
		// The sandbox wrapper (sandbox-exec) runs the shell under the
		// session's profile.
		path, argv = w[0], append(append(append([]string{}, w...), s.path), s.argv[1:]...)
	}
	p, err := os.StartProcess(path, argv, &os.ProcAttr{
		Dir:   s.dir,
		Env:   s.env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return nil, 0, err
	}
	return direct{p}, p.Pid, nil
}

type direct struct{ p *os.Process }

// wait reaps the shell, then kills whatever it left running in its group.
func (d direct) wait() (*os.ProcessState, error) {
	ps, err := d.p.Wait()
	_ = killGroup(d.p.Pid, sigKill) // best effort: usually nobody is left
	return ps, err
}

func (d direct) killAll() { _ = killGroup(d.p.Pid, sigKill) } // best effort
