package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/tools"
)

// session is one isolated workspace: a cwd, an environment, and the
// per-tool FIFO queues of tools that need their calls in order.
//
// A session is an object with a generation, not an id string: its Key is
// unique for the runtime's life, tools key their state by it, and closing
// the session fences every call admitted for it (see Runtime.sessionClose),
// so nothing of it is reachable through a later session with the same id.
type session struct {
	info tools.Session
	// turn maps a serial tool's name to a channel closed when the last
	// admitted call of that tool finishes; the next call waits on it.
	// Guarded by Runtime.mu.
	turn map[string]chan struct{}

	// ctx ends when the session is closed: calls waiting for their turn give
	// up, running ones are cancelled.
	ctx    context.Context
	cancel context.CancelFunc
	// calls counts the session's admitted calls whose jobs have not
	// returned. Add is called under Runtime.mu while the session is open,
	// so once it is closed the count only falls.
	calls sync.WaitGroup
	// active counts the same calls, for session/update's check.
	active atomic.Int32

	// noticeMu orders notices against the end of the close: a notice is
	// either sent before the close is answered or never.
	noticeMu sync.Mutex
	gone     bool
}

// closedError is the answer to a call that names a closed session, or was
// admitted for a session that closed before it started.
func closedError(method, id, when string) error {
	return &rpc.Error{
		Code:    rpc.CodeSessionNotFound,
		Message: fmt.Sprintf("%s: session %q is closed%s; nothing was run", method, id, when),
		Data:    map[string]any{"session": id, "closed": true},
	}
}

type sessionNewParams struct {
	Cwd     string            `json:"cwd"`
	ID      string            `json:"id,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	BaseEnv map[string]string `json:"baseEnv,omitempty"`
	// Sandbox is merged over the runtime config's sandbox.
	Sandbox *sandbox.Config `json:"sandbox,omitempty"`
}

type sessionNewResult struct {
	Session string         `json:"session"`
	Cwd     string         `json:"cwd"`
	Sandbox map[string]any `json:"sandbox,omitempty"`
}

func checkCwd(cwd string) error {
	switch {
	case cwd == "":
		return rpc.Errorf(rpc.CodeInvalidParams, `session/new: "cwd" is required (an absolute path to an existing directory)`)
	case !filepath.IsAbs(cwd):
		return rpc.Errorf(rpc.CodeInvalidParams, "session/new: cwd %q is not absolute", cwd)
	}
	fi, err := os.Stat(cwd)
	switch {
	case err != nil:
		return rpc.Errorf(rpc.CodeInvalidParams, "session/new: cwd %q does not exist or cannot be read: %v", cwd, unwrapPath(err))
	case !fi.IsDir():
		return rpc.Errorf(rpc.CodeInvalidParams, "session/new: cwd %q is not a directory", cwd)
	}
	return nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func checkSessionID(id string) error {
	if len(id) > 128 {
		return rpc.Errorf(rpc.CodeInvalidParams, "session/new: id is %d bytes long; the limit is 128", len(id))
	}
	for _, r := range id {
		if !(r == '_' || r == '-' || r == '.' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return rpc.Errorf(rpc.CodeInvalidParams, "session/new: id %q may hold only letters, digits and '_', '-', '.', ':'", id)
		}
	}
	return nil
}

func checkEnv(member string, env map[string]string) error {
	for _, name := range sortedKeys(env) {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return rpc.Errorf(rpc.CodeInvalidParams, "session/new: %s: environment variable name %q is invalid", member, name)
		}
		if strings.ContainsRune(env[name], 0) {
			return rpc.Errorf(rpc.CodeInvalidParams, "session/new: %s: environment variable %q holds a NUL byte", member, name)
		}
	}
	return nil
}

// recentlyClosed bounds how many closed session ids the runtime remembers
// to say "is closed" rather than "no session" about them.
const recentlyClosed = 4096

// newSession validates and registers a session. Call with rt.mu held.
func (rt *Runtime) newSession(p sessionNewParams) (*session, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return nil, err
	}
	if err := checkEnv("env", p.Env); err != nil {
		return nil, err
	}
	if err := checkEnv("baseEnv", p.BaseEnv); err != nil {
		return nil, err
	}
	id := p.ID
	if id != "" {
		if err := checkSessionID(id); err != nil {
			return nil, err
		}
		if rt.sessions[id] != nil {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "session/new: session %q already exists", id)
		}
	} else {
		for id == "" || rt.sessions[id] != nil {
			rt.nextSession++
			id = fmt.Sprintf("s%d", rt.nextSession)
		}
	}
	env := make(map[string]string, len(p.Env))
	for k, v := range p.Env {
		env[k] = v
	}
	var base []string
	if p.BaseEnv != nil {
		base = make([]string, 0, len(p.BaseEnv))
		for _, k := range sortedKeys(p.BaseEnv) {
			base = append(base, k+"="+p.BaseEnv[k])
		}
	}
	info := tools.Session{ID: id, Cwd: filepath.Clean(p.Cwd), Env: env, BaseEnv: base}
	pol, err := rt.resolveSandbox("session/new", p.Sandbox, info.Cwd, info.Environ(os.Environ()))
	if err != nil {
		return nil, err
	}
	setSandbox(&info, pol)
	rt.generation++
	info.Key = fmt.Sprintf("%s#%d", id, rt.generation)
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{info: info, turn: map[string]chan struct{}{}, ctx: ctx, cancel: cancel}
	rt.sessions[id] = s
	rt.byKey[info.Key] = s
	if rt.closed[id] {
		rt.forgetClosed(id)
	}
	return s, nil
}

// rememberClosed records a closed id, forgetting the oldest beyond
// recentlyClosed. Call with rt.mu held.
func (rt *Runtime) rememberClosed(id string) {
	if rt.closed[id] {
		return
	}
	rt.closed[id] = true
	rt.closedOrder = append(rt.closedOrder, id)
	for len(rt.closedOrder) > recentlyClosed {
		delete(rt.closed, rt.closedOrder[0])
		rt.closedOrder = rt.closedOrder[1:]
	}
}

// forgetClosed drops id from the closed ids (it names a new session now).
// Call with rt.mu held.
func (rt *Runtime) forgetClosed(id string) {
	delete(rt.closed, id)
	for i, c := range rt.closedOrder {
		if c == id {
			rt.closedOrder = append(rt.closedOrder[:i], rt.closedOrder[i+1:]...)
			break
		}
	}
}

// unknownSession is the error for a call or close naming id, which is not
// an open session.
func (rt *Runtime) unknownSession(method, id string) error {
	if rt.closed[id] {
		return closedError(method, id, "")
	}
	return rpc.Errorf(rpc.CodeSessionNotFound, "%s: no session %q", method, id)
}
