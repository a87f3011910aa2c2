package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/tools"
)

// session is one isolated workspace: a cwd, extra environment, and the
// per-tool FIFO queues of tools that need their calls in order.
type session struct {
	info tools.Session
	// turn maps a serial tool's name to a channel closed when the last
	// admitted call of that tool finishes; the next call waits on it.
	turn map[string]chan struct{}
}

type sessionNewParams struct {
	Cwd string            `json:"cwd"`
	ID  string            `json:"id,omitempty"`
	Env map[string]string `json:"env,omitempty"`
}

type sessionNewResult struct {
	Session string `json:"session"`
	Cwd     string `json:"cwd"`
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

func checkEnv(env map[string]string) error {
	for _, name := range sortedKeys(env) {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return rpc.Errorf(rpc.CodeInvalidParams, "session/new: environment variable name %q is invalid", name)
		}
		if strings.ContainsRune(env[name], 0) {
			return rpc.Errorf(rpc.CodeInvalidParams, "session/new: environment variable %q holds a NUL byte", name)
		}
	}
	return nil
}

// newSession validates and registers a session. Call with rt.mu held.
func (rt *Runtime) newSession(p sessionNewParams) (*session, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return nil, err
	}
	if err := checkEnv(p.Env); err != nil {
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
	s := &session{info: tools.Session{ID: id, Cwd: filepath.Clean(p.Cwd), Env: env}, turn: map[string]chan struct{}{}}
	rt.sessions[id] = s
	return s, nil
}
