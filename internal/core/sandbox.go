package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/tools"
)

// A session's sandbox (internal/sandbox): the runtime config's "sandbox"
// member is every session's default, session/new's "sandbox" param is
// merged over it, and session/update replaces it while the session has
// nothing running. The policy lives in the session's tools.Session, so
// every call admitted after a change sees the new one.

// sandboxError turns a failed resolution into the error of method: a
// policy the machine cannot enforce is CodeSandbox, anything else about
// the request is invalid params.
func sandboxError(err error) error {
	if errors.Is(err, sandbox.ErrUnsupported) {
		return rpc.Errorf(rpc.CodeSandbox, "%v", err)
	}
	return rpc.Errorf(rpc.CodeInvalidParams, "%v", err)
}

// resolveSandbox resolves a session's sandbox: req over the runtime's
// default, for a session in cwd with env.
func (rt *Runtime) resolveSandbox(method string, req *sandbox.Config, cwd string, env []string) (*sandbox.Policy, error) {
	if req != nil {
		if err := req.Check(method+": sandbox", true); err != nil {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "%v", err)
		}
	}
	p, err := sandbox.Resolve(sandbox.Request{Default: rt.cfg.Sandbox, Session: req, Cwd: cwd, Env: env, Where: method})
	if err != nil {
		return nil, sandboxError(err)
	}
	return p, nil
}

// setSandbox makes p the sandbox of info.
func setSandbox(info *tools.Session, p *sandbox.Policy) {
	info.Sandbox = p
	info.PathPolicy = p.PathPolicy()
}

type sessionUpdateParams struct {
	Session string          `json:"session"`
	Sandbox *sandbox.Config `json:"sandbox"`
}

type sessionUpdateResult struct {
	Session string         `json:"session"`
	Sandbox map[string]any `json:"sandbox,omitempty"`
}

// sessionUpdate changes a session's sandbox ({} is the runtime's
// default). It is answered in line, so a call sent after it runs under the
// new sandbox. It refuses while anything of the session runs — a call in
// flight, a persistent shell, a background task — since those keep the
// sandbox they started with: close the session (or end its shell) first.
func (rt *Runtime) sessionUpdate(params json.RawMessage) (any, error) {
	var p sessionUpdateParams
	if err := decodeParams("session/update", params, &p); err != nil {
		return nil, err
	}
	if p.Sandbox == nil {
		return nil, rpc.Errorf(rpc.CodeInvalidParams, `session/update: "sandbox" is required (an object; {} is the runtime's default)`)
	}
	if err := p.Sandbox.Check("session/update: sandbox", true); err != nil {
		return nil, rpc.Errorf(rpc.CodeInvalidParams, "%v", err)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	s := rt.sessions[p.Session]
	if s == nil {
		return nil, rt.unknownSession("session/update", p.Session)
	}
	if busy := rt.busy(s); busy != "" {
		return nil, &rpc.Error{
			Code: rpc.CodeSandbox,
			Message: fmt.Sprintf("session/update: session %q has %s under its sandbox (%s), which a change cannot reach; "+
				"let it finish, or end it (exit the shell, bash_kill the task), or open a new session with the sandbox you want", p.Session, busy, s.info.Sandbox.Mode()),
			Data: map[string]any{"session": p.Session, "busy": busy},
		}
	}
	pol, err := rt.resolveSandbox("session/update", p.Sandbox, s.info.Cwd, s.info.Environ(os.Environ()))
	if err != nil {
		return nil, err
	}
	old := s.info.Sandbox
	setSandbox(&s.info, pol)
	old.Close()
	return sessionUpdateResult{Session: s.info.ID, Sandbox: pol.Meta()}, nil
}

// busy says what of s is running: calls in flight, or what its tools keep
// running. Call with rt.mu held.
func (rt *Runtime) busy(s *session) string {
	if n := s.active.Load(); n > 0 {
		if n == 1 {
			return "a call in progress"
		}
		return fmt.Sprintf("%d calls in progress", n)
	}
	for _, m := range rt.reg.order {
		if r, ok := m.tool.(tools.Runner); ok {
			if what := r.Running(s.info.Key); what != "" {
				return what
			}
		}
	}
	return ""
}

// sandboxInfo is initialize's report: what this machine can enforce, and
// the runtime's default sandbox.
type sandboxInfo struct {
	sandbox.Support
	Default       map[string]any `json:"default"`
	AllowWidening bool           `json:"allowWidening,omitempty"`
}

func (rt *Runtime) sandboxInfo() *sandboxInfo {
	def := rt.defaultPolicy.Meta()
	if def == nil {
		def = map[string]any{"mode": sandbox.ModeFullAccess}
	}
	return &sandboxInfo{Support: sandbox.Probe(), Default: def, AllowWidening: rt.cfg.Sandbox.AllowWidening}
}

// withSandboxMeta returns the structured content of a result of a session
// with a sandbox, with its "sandbox" member (a copy: the tool's map is
// its own).
func withSandboxMeta(structured map[string]any, p *sandbox.Policy) map[string]any {
	meta := p.Meta()
	if meta == nil {
		return structured
	}
	out := make(map[string]any, len(structured)+1)
	for k, v := range structured {
		out[k] = v
	}
	out["sandbox"] = meta
	return out
}

// sandboxedTools are the tools whose descriptions say what the sandbox
// allows: those that run commands or change files (canonical names).
var sandboxedTools = map[string]bool{"bash": true, "str_replace_editor": true, "apply_patch": true}

// describe returns m's description with the sandbox line of p, when p
// restricts anything. forDefault words the line for the runtime's
// default, whose session directory is not known.
func describe(m *mounted, p *sandbox.Policy, forDefault bool) string {
	if !sandboxedTools[m.tool.Name()] {
		return m.description
	}
	dir := ""
	if forDefault {
		dir = "the session's working directory"
	}
	line := p.Describe(dir)
	if line == "" {
		return m.description
	}
	return strings.TrimRight(m.description, "\n") + "\n\n" + line
}
