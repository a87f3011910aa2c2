// Package core is shellport's core: sessions, the tool registry, config
// and profiles, and the JSON-RPC dispatcher that both carriers (the C ABI in
// capi/ and the stdio executable in cmd/shellport) feed.
//
// A carrier creates a Runtime with a Send function for outgoing messages,
// hands it every incoming message with Deliver, and calls Close at the end:
//
//	rt := core.New(core.Options{Config: cfg, Send: writeLine})
//	for each line read { rt.Deliver(line) }
//	rt.Close()
//
// Requests are answered concurrently, each on its own goroutine with its own
// context; $/cancelRequest cancels one by id. The method set is documented in
// docs/PROTOCOL.md.
package core

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/sandbox"
)

// Version is the runtime's version. The Python package and the native files
// in a wheel must carry the same one.
const Version = "0.1.0"

// ProtocolVersion is the version of the message set in docs/PROTOCOL.md.
const ProtocolVersion = 1

// Options configure a Runtime.
type Options struct {
	// Config is used unless the client's initialize brings its own.
	Config Config
	// ConfigErr, when set, is a config that failed to parse before the
	// runtime started (bad --config, bad shellport_open argument). It is
	// reported to the first request instead of being silently replaced.
	ConfigErr error
	// Send writes one outgoing message. It must be safe for concurrent use.
	// The message is Send's to keep or change (the stdio carrier puts its
	// newline in the spare capacity): the runtime never touches it after.
	Send func(msg []byte) error
	// Log receives diagnostics (recovered panics). Nil discards them.
	Log io.Writer
	// KeepSpill keeps spill files after Close (for one-off CLI calls whose
	// output names a spill file the user will read afterwards); a spill
	// directory left empty is removed all the same.
	KeepSpill bool
	// SpawnHelper is the default path of shellport-spawn-helper, used when
	// the config names none (tools.bash.spawnHelper). On Linux every
	// process the tools start runs under it (a per-process supervisor); on
	// macOS persistent shells start through it. Carriers set it from
	// SHELLPORT_SPAWN_HELPER or to the helper shipped beside them. A helper
	// that is missing or not executable fails the runtime's initialization
	// with an error naming the path; there is no silent fallback to direct
	// spawning, and on Linux no helper at all fails it too.
	SpawnHelper string
	// SpawnHelperNotFound is the error initialization reports when the
	// helper is required (Linux) and neither the config nor SpawnHelper
	// names one; carriers say there where they looked
	// (spawnhelper.NotFound).
	SpawnHelperNotFound error
	// Heartbeat, when positive, is how often the client must send
	// something: the carrier ends the runtime after that long without
	// input (the stdio carrier's --heartbeat). The runtime only reports it,
	// as heartbeatMs in its answer to initialize, so the client knows to
	// send $/ping.
	Heartbeat time.Duration
}

// Runtime serves the shellport message set.
type Runtime struct {
	opts Options
	srv  *rpc.Server
	cwd  string // for calls made without a session

	mu  sync.Mutex
	cfg Config
	reg *registry // nil until initialized
	// defaultPolicy is the sandbox of calls made without a session (the
	// runtime config's, in the runtime's directory).
	defaultPolicy *sandbox.Policy
	initErr       error
	spillDir      string
	sessions      map[string]*session // open sessions by client-visible id
	byKey         map[string]*session // open sessions by Key, for notices
	closed        map[string]bool     // recently closed ids (see rememberClosed)
	closedOrder   []string
	nextSession   int
	generation    int64 // numbers session Keys; never reused
	shutdown      bool

	calls     sync.WaitGroup // admitted tool calls not yet answered
	nextCall  atomic.Int64
	exitOnce  sync.Once
	exit      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// New returns a runtime that answers through opts.Send.
func New(opts Options) *Runtime {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "/"
	}
	rt := &Runtime{opts: opts, cwd: cwd, cfg: opts.Config, sessions: map[string]*session{}, byKey: map[string]*session{}, closed: map[string]bool{}, exit: make(chan struct{})}
	rt.srv = rpc.NewServer(rpc.HandlerFunc(rt.accept), opts.Send)
	rt.srv.OnPanic(func(method string, v any, stack []byte) {
		fmt.Fprintf(opts.Log, "shellport: recovered panic in %s: %v\n%s", method, v, stack)
	})
	return rt
}

// Deliver handles one incoming message. Call it from one goroutine: the
// order of delivery is the order requests are admitted.
func (rt *Runtime) Deliver(msg []byte) {
	if limit := rt.maxMessage(); len(msg) > limit {
		rt.srv.DeliverError(rpc.NewTooLargeError(msg, limit))
		return
	}
	rt.srv.Deliver(msg)
}

// DeliverThenWait is Deliver for a carrier whose delivering goroutine
// waits for its next message in the Go poller right after; more says the
// next message is already at hand (see rpc.Server.DeliverThenWait). The
// stdio carrier uses it when it reads stdin through the poller.
func (rt *Runtime) DeliverThenWait(msg []byte, more bool) {
	if limit := rt.maxMessage(); len(msg) > limit {
		rt.srv.DeliverError(rpc.NewTooLargeError(msg, limit))
		return
	}
	rt.srv.DeliverThenWait(msg, more)
}

// DeliverTo is Deliver with the message's reply sent to sink instead of
// Options.Send (notifications still go to Send). It reports whether a reply
// will come: false for a notification. The in-process carrier's blocking
// Call uses it, so a caller gets its own request's answer whatever ids other
// requests use.
func (rt *Runtime) DeliverTo(msg []byte, sink func([]byte) error) bool {
	if limit := rt.maxMessage(); len(msg) > limit {
		rt.srv.DeliverErrorTo(rpc.NewTooLargeError(msg, limit), sink)
		return true
	}
	return rt.srv.DeliverTo(msg, sink)
}

// DeliverInline is DeliverTo, except that the job of a call to a quick tool
// (tools.Quick), or the first half of a call split in two (a persistent
// shell that is up, see starter), is returned as run for the caller to run
// on its own goroutine, once, after releasing what orders its deliveries
// (see rpc.Server.DeliverInline). The C ABI's shellport_start uses it: the
// blocked caller's thread does the work, with no hand-off to a worker and
// back.
func (rt *Runtime) DeliverInline(msg []byte, sink func([]byte) error) (replies bool, run func()) {
	if limit := rt.maxMessage(); len(msg) > limit {
		rt.srv.DeliverErrorTo(rpc.NewTooLargeError(msg, limit), sink)
		return true, nil
	}
	return rt.srv.DeliverInline(msg, sink)
}

// DeliverError answers a message the carrier could not read whole (too
// large, unreadable).
func (rt *Runtime) DeliverError(err error) { rt.srv.DeliverError(err) }

// MaxMessage is the largest message the runtime accepts, in bytes.
func (rt *Runtime) MaxMessage() int { return rt.maxMessage() }

func (rt *Runtime) maxMessage() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.cfg.MaxMessageBytes > 0 {
		return rt.cfg.MaxMessageBytes
	}
	return rpc.DefaultMaxMessage
}

// ExitRequested is closed when the client sent the exit notification.
func (rt *Runtime) ExitRequested() <-chan struct{} { return rt.exit }

// Drain stops taking requests and waits until every request already
// delivered has been answered. It gives up when ctx ends, or when no
// request was answered for LongestCall: every call is bounded by its tool's
// config, so that long without progress means a call is stuck. The
// executable drains at end of input, so a script that pipes its requests
// and closes stdin still gets every reply, however many calls wait their
// turn in a session.
func (rt *Runtime) Drain(ctx context.Context) error {
	for {
		before := rt.srv.Replies()
		limit := rt.LongestCall()
		if testOnlyDrainLimit > 0 {
			limit = testOnlyDrainLimit
		}
		wait, cancel := context.WithTimeout(ctx, limit)
		err := rt.srv.Close(wait)
		cancel()
		if err == nil || ctx.Err() != nil || rt.srv.Replies() == before {
			return err
		}
	}
}

// testOnlyDrainLimit, when set by a test, replaces LongestCall in Drain.
var testOnlyDrainLimit time.Duration

// LongestCall is the longest one tool call can take under the runtime's
// config: the largest timeout a tool's config allows plus the time the
// tool gives a command to stop (see tools.CallBound), and at least a
// minute. Before initialization it is that minute.
func (rt *Runtime) LongestCall() time.Duration {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.reg == nil {
		return minLongestCall
	}
	return rt.reg.longest
}

// Close ends every session, kills every process the tools started, answers
// in-flight requests (as cancelled), and removes the spill directory. It is
// safe to call more than once; later calls return the first result.
func (rt *Runtime) Close() error {
	rt.closeOnce.Do(func() {
		rt.mu.Lock()
		rt.shutdown = true
		rt.mu.Unlock()
		rt.srv.CancelAll()
		rt.closeErr = rt.closeTools()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rt.srv.Close(ctx); err != nil && rt.closeErr == nil {
			rt.closeErr = err
		}
		rt.mu.Lock()
		dir := rt.spillDir
		rt.mu.Unlock()
		switch {
		case dir == "":
		case rt.opts.KeepSpill:
			_ = os.Remove(dir) // removes it only when no spill file is in it: nothing to keep
		default:
			_ = os.RemoveAll(dir) // best effort
		}
	})
	return rt.closeErr
}

// closeTools kills what every tool started. Safe to run twice (shutdown,
// then Close): tools' Close is idempotent.
func (rt *Runtime) closeTools() error {
	rt.mu.Lock()
	reg := rt.reg
	open := rt.sessions
	rt.sessions = map[string]*session{}
	rt.byKey = map[string]*session{}
	rt.mu.Unlock()
	for _, s := range open {
		s.cancel() // calls still queued give up
		s.silence()
	}
	if reg == nil {
		return nil
	}
	err := reg.close()
	for _, s := range open {
		s.info.Sandbox.Close()
	}
	rt.mu.Lock()
	def := rt.defaultPolicy
	rt.mu.Unlock()
	def.Close()
	return err
}
