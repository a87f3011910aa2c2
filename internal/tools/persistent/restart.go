package persistent

import (
	"context"
	"os"

	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// Restart replaces the session's shell with a fresh one: the old shell and
// everything it started are killed, and a new shell starts in the session's
// directory, so the next command finds none of the old working directory,
// variables, functions or background jobs. It waits its turn behind the
// session's earlier calls, like a command. The result says so in words; a
// shell that cannot be started is an isError result, and the next command
// tries again.
func (t *Tool) Restart(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	if call.Session.Key == "" {
		return tools.Errorf("this tool keeps one shell per session, so it runs only in a session; the call named none"), nil
	}
	s, err := t.session(call.Session.Key)
	if err != nil {
		return nil, err
	}
	if err := s.queue.lock(ctx); err != nil {
		return nil, err
	}
	defer s.queue.unlock()

	s.mu.Lock()
	old, closed := s.sh, s.closed
	s.sh, s.lost = nil, nil // this result tells the reset
	s.mu.Unlock()
	if closed {
		return nil, ErrSessionClosed
	}
	if old != nil {
		old.close()
	}
	env := shellEnv(call.Session.Base(os.Environ()), call.Session)
	sh, err := startShell(ctx, t.shellCfg, call.Session.Cwd, env, call.Session.Sandbox)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res := startFailed(err, nil, call.Session.Cwd)
		res.Text = "The old shell was stopped, but a new one could not be started (" + err.Error() + "); the next command tries again."
		res.Structured = restartedMeta()
		return res, nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sh.close()
		return nil, ErrSessionClosed
	}
	s.sh = sh
	s.mu.Unlock()
	return &tools.Result{
		Text: "The shell was restarted: the old shell and everything it started were stopped, and a fresh shell is ready in " +
			where(call.Session.Cwd) + ", without the earlier working directory, variables, functions or background jobs.",
		Structured: restartedMeta(),
	}, nil
}

// restartedMeta is the structuredContent of a restart: the dialect's keys,
// with the reset told, and "restarted".
func restartedMeta() map[string]any {
	m := output.Result{ShellReset: true}.Meta()
	m["restarted"] = true
	return m
}
