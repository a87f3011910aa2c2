package core

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/strictjson"
	"github.com/shellport/shellport/internal/tools"
)

// methods lists what the runtime answers, for the method-not-found message.
var methods = []string{"initialize", "session/new", "session/update", "session/close", "tools/list", "tools/call", "tools/present", "shutdown", "exit", rpc.CancelMethod, rpc.PingMethod}

// accept routes one request. It runs in arrival order on the delivering
// goroutine: quick methods do their work here (so a pipelined session/new
// exists before the tools/call behind it), slow ones return a Job.
func (rt *Runtime) accept(req *rpc.Request) rpc.Answer {
	switch req.Method {
	case "initialize":
		return done(rt.initialize(req.Params))
	case "exit":
		rt.exitOnce.Do(func() { close(rt.exit) })
		return rpc.Answer{}
	case "shutdown":
		return rt.shutdownGracefully()
	}
	if err := rt.ensureInit(); err != nil {
		return fail(err)
	}
	switch req.Method {
	case "session/new":
		return done(rt.sessionNew(req.Params))
	case "session/update":
		return done(rt.sessionUpdate(req.Params))
	case "session/close":
		return rt.sessionClose(req.Params)
	case "tools/list":
		return done(rt.toolsList(req.Params))
	case "tools/call":
		return rt.toolsCall(req)
	case "tools/present":
		return done(rt.toolsPresent(req.Params))
	}
	return fail(rpc.Errorf(rpc.CodeMethodNotFound, "method not found: %q (methods: %s)", req.Method, strings.Join(methods, ", ")))
}

func done(result any, err error) rpc.Answer { return rpc.Answer{Result: result, Err: err} }

func fail(err error) rpc.Answer { return rpc.Answer{Err: err} }

func async(job rpc.Job) rpc.Answer { return rpc.Answer{Job: job} }

// decodeParams decodes params exactly (see internal/strictjson): a
// misspelt, miscased or repeated member, or a string that is not valid
// Unicode, is an error.
func decodeParams(method string, params json.RawMessage, dst any) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if err := strictjson.Decode(params, dst); err != nil {
		return rpc.Errorf(rpc.CodeInvalidParams, "invalid params for %s: %s", method, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

type initializeParams struct {
	ProtocolVersion int             `json:"protocolVersion,omitempty"`
	Config          json.RawMessage `json:"config,omitempty"`
	ClientInfo      json.RawMessage `json:"clientInfo,omitempty"`
}

type initializeResult struct {
	ProtocolVersion int        `json:"protocolVersion"`
	ServerInfo      serverInfo `json:"serverInfo"`
	Profile         string     `json:"profile"`
	Tools           []string   `json:"tools"`
	HeartbeatMs     int64      `json:"heartbeatMs,omitempty"`
	// Sandbox says what this machine can enforce and the runtime's
	// default sandbox.
	Sandbox *sandboxInfo `json:"sandbox"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (rt *Runtime) initialize(params json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams("initialize", params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion != 0 && p.ProtocolVersion != ProtocolVersion {
		return nil, rpc.Errorf(rpc.CodeInvalidParams, "initialize: protocol version %d is not supported (this runtime speaks %d)", p.ProtocolVersion, ProtocolVersion)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.reg != nil {
		return nil, rpc.Errorf(rpc.CodeConfig, "initialize: the runtime is already initialized")
	}
	if len(p.Config) > 0 && string(p.Config) != "null" {
		cfg, err := ParseConfig(p.Config)
		if err != nil {
			return nil, rpc.Errorf(rpc.CodeConfig, "initialize: %v", err)
		}
		rt.cfg, rt.opts.ConfigErr = cfg, nil
	}
	if err := rt.initLocked(); err != nil {
		return nil, err
	}
	return initializeResult{
		ProtocolVersion: ProtocolVersion,
		ServerInfo:      serverInfo{Name: "shellport", Version: Version},
		Profile:         rt.cfg.Profile,
		Tools:           rt.reg.names(),
		HeartbeatMs:     rt.opts.Heartbeat.Milliseconds(),
		Sandbox:         rt.sandboxInfo(),
	}, nil
}

func (rt *Runtime) ensureInit() error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.shutdown {
		return rpc.Errorf(rpc.CodeShutDown, "runtime is shut down")
	}
	if rt.reg != nil {
		return nil
	}
	return rt.initLocked()
}

// initLocked builds the tools from the current config. Call with rt.mu held.
func (rt *Runtime) initLocked() error {
	if rt.initErr != nil {
		return rt.initErr
	}
	if rt.opts.ConfigErr != nil {
		return rpc.Errorf(rpc.CodeConfig, "%v", rt.opts.ConfigErr)
	}
	if err := rt.cfg.Check(); err != nil {
		return rpc.Errorf(rpc.CodeConfig, "%v", err)
	}
	// The default sandbox must be enforceable before anything runs under
	// it: a runtime whose config asks for more than this machine can do
	// refuses to start (unless the config says onUnsupported "warn").
	def, err := sandbox.Resolve(sandbox.Request{Default: rt.cfg.Sandbox, Cwd: rt.cwd, Env: os.Environ()})
	if err != nil {
		return sandboxError(err)
	}
	dir, err := os.MkdirTemp("", "shellport-spill-")
	if err != nil {
		return fmt.Errorf("create spill directory: %w", err)
	}
	host := tools.Host{Notify: rt.notify, SpillDir: dir}
	reg, err := newRegistry(rt.cfg, host, rt.opts)
	if err != nil {
		_ = os.RemoveAll(dir) // best effort
		rt.initErr = rpc.Errorf(rpc.CodeConfig, "%v", err)
		return rt.initErr
	}
	rt.reg, rt.spillDir, rt.defaultPolicy = reg, dir, def
	return nil
}

type notice struct {
	Session string `json:"session"`
	Text    string `json:"text"`
}

// notify sends a tool's notice to the session with sessionKey. A notice for
// a session that has closed (or is closing) is dropped: it must never reach
// a later session with the same id.
func (rt *Runtime) notify(sessionKey, text string) {
	rt.mu.Lock()
	s := rt.byKey[sessionKey]
	rt.mu.Unlock()
	if s == nil {
		return
	}
	s.noticeMu.Lock()
	defer s.noticeMu.Unlock()
	if !s.gone {
		_ = rt.srv.Notify("session/notice", notice{Session: s.info.ID, Text: text}) // the client may be gone
	}
}

// silence makes sure no notice of s is sent from now on; a notice being
// sent is finished first.
func (s *session) silence() {
	s.noticeMu.Lock()
	s.gone = true
	s.noticeMu.Unlock()
}

func (rt *Runtime) sessionNew(params json.RawMessage) (any, error) {
	var p sessionNewParams
	if err := decodeParams("session/new", params, &p); err != nil {
		return nil, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	s, err := rt.newSession(p)
	if err != nil {
		return nil, err
	}
	return sessionNewResult{Session: s.info.ID, Cwd: s.info.Cwd, Sandbox: s.info.Sandbox.Meta()}, nil
}

type sessionRef struct {
	Session string `json:"session"`
}

// sessionClose is a fence. In line (so a pipelined session/new may reuse
// the id at once, and a tools/call behind it lands in the new session), it
// forgets the session and cancels its context: calls still waiting for their
// turn give up with a "session closed" error, running ones are cancelled.
// The job then waits until every call of the session has returned, has the
// tools kill what the session started (they return once it is dead), stops
// its notices, and only then answers.
func (rt *Runtime) sessionClose(params json.RawMessage) rpc.Answer {
	var p sessionRef
	if err := decodeParams("session/close", params, &p); err != nil {
		return fail(err)
	}
	rt.mu.Lock()
	s := rt.sessions[p.Session]
	if s == nil {
		err := rt.unknownSession("session/close", p.Session)
		rt.mu.Unlock()
		return fail(err)
	}
	delete(rt.sessions, p.Session)
	delete(rt.byKey, s.info.Key)
	rt.rememberClosed(p.Session)
	reg := rt.reg
	rt.mu.Unlock()
	s.cancel()

	// The teardown runs to its end even if this request is cancelled: the
	// session is gone either way, and so must be its processes.
	torn := make(chan struct{})
	go func() {
		defer close(torn)
		s.calls.Wait()
		reg.closeSession(s.info.Key)
		s.silence()
		rt.mu.Lock()
		pol := s.info.Sandbox // no call reads it any more
		rt.mu.Unlock()
		pol.Close()
	}()
	return async(func(ctx context.Context) (any, error) {
		select {
		case <-torn:
			return struct{}{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

// shutdownGracefully refuses new work at once (in line, so nothing sent
// after it starts), lets the tool calls already admitted finish — they are
// bounded by their own timeouts, and the client may still cancel them — then
// kills every process the tools started and answers.
func (rt *Runtime) shutdownGracefully() rpc.Answer {
	rt.mu.Lock()
	rt.shutdown = true
	rt.mu.Unlock()
	return async(func(ctx context.Context) (any, error) {
		drained := make(chan struct{})
		go func() { rt.calls.Wait(); close(drained) }()
		select {
		case <-drained:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if err := rt.closeTools(); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	})
}
