package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shellport/shellport/internal/rawio"
)

// CancelMethod is the notification that cancels an in-flight request.
const CancelMethod = "$/cancelRequest"

// PingMethod is the notification a client sends to show it is still there
// (see the heartbeat of `shellport serve`). It does nothing else; sent as a
// request it is answered with an empty result.
const PingMethod = "$/ping"

// Job does the work of one request on its own goroutine. Its context ends
// when the client cancels the request or the server closes.
type Job func(ctx context.Context) (any, error)

// Begin starts a request's work without waiting, split in two: it does
// bounded work on the goroutine that delivered the request (for the C ABI
// the caller's own thread) and reports true, having arranged for resume to
// be called exactly once, from any goroutine and possibly before Begin
// returns, with the Job that finishes the work (bounded too: it builds the
// result, it does not wait). Or it reports false, having done nothing,
// when the work cannot start without waiting: the Answer's Job then runs
// on a worker as usual. The finishing Job runs on the goroutine that
// calls resume, with the request's context, its panics answered as errors,
// and its result sent as the reply: no worker goroutine is woken between
// the two halves (issue 16).
type Begin func(ctx context.Context, resume func(finish Job)) (started bool)

// Answer is what a Handler makes of a request: either the reply itself
// (Result or Err, sent at once, in arrival order) or a Job that produces it
// on its own goroutine.
type Answer struct {
	Result any
	Err    error
	Job    Job
	// Quick marks a Job that does bounded work and never waits for a
	// process, a timer or another call: DeliverInline hands such a job
	// back to its caller, which runs it on its own goroutine instead of
	// waking a worker and being woken by it (issue 16).
	Quick bool
	// Begin, when not nil, is the Job split in two (see Begin), tried
	// first by DeliverInline's caller and by DeliverThenWait; Job stays
	// the whole work, for when Begin cannot start and for other
	// deliveries.
	Begin Begin
}

// Handler routes requests. Accept runs on the delivering goroutine, in
// arrival order, and must not block for long: quick methods answer there,
// slow ones return a Job.
type Handler interface {
	Accept(req *Request) Answer
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(req *Request) Answer

// Accept calls f.
func (f HandlerFunc) Accept(req *Request) Answer { return f(req) }

// Server answers requests delivered to it one message at a time. Every
// request gets exactly one reply; notifications get none. Replies and
// notifications go out through send, one whole message per call.
type Server struct {
	handler Handler
	send    func([]byte) error
	onPanic func(method string, v any, stack []byte)

	mu       sync.Mutex
	inflight map[idKey]context.CancelFunc
	closed   bool
	wg       sync.WaitGroup
	replies  atomic.Uint64 // requests answered, for Replies

	// Jobs run on pooled goroutines: a fresh goroutine starts with a small
	// stack and grows it (copying every frame) while the job encodes its
	// reply, which cost about a third of a call's CPU; a reused one keeps
	// its stack (issue 16).
	poolMu   sync.Mutex
	idle     []*worker     // workers waiting for a job, most recent last
	quit     chan struct{} // closed by Close: idle workers end
	quitting atomic.Bool   // set just before quit is closed
	quitMu   sync.Once
	// bells is set by the first DeliverThenWait: workers started from then
	// on wait for their jobs in the Go poller (rawio.Bell), and a delivery
	// that hands them a job to start at once yields to let a thread poll.
	// Only the stdio carrier calls DeliverThenWait; the in-process one,
	// whose deliveries run on a cgo caller's locked thread, where a yield
	// costs a hand-off of that thread, never does.
	bells atomic.Bool
}

// worker is a pooled goroutine, idle or running a job.
type worker struct {
	next chan func() // buffered: the job spawn hands over
	// bell, when not nil, is what the idle worker waits on instead of a
	// receive from next: spawn puts the job in next, which wakes nobody,
	// then rings it. Waited on in the poller, a worker the delivering
	// thread's next poll finds ready runs on that thread, with no idle
	// thread woken to start it (issue 16).
	bell   *rawio.Bell
	server *Server
}

// Holds is the condition of an idle worker's wait on its bell: a job is
// there, or the server is closing.
func (w *worker) Holds() bool { return len(w.next) > 0 || w.server.quitting.Load() }

// handOff is how a job reaches an idle worker that waits on a bell.
type handOff int

const (
	// viaScheduler: a channel send (or, for a worker waiting on a bell, a
	// ring and a yield), so an idle thread starts the job at once. What
	// Deliver, DeliverTo and DeliverInline do.
	viaScheduler handOff = iota
	// viaPoller: a ring alone; the delivering goroutine, about to wait in
	// the poller, lets its thread run the job (DeliverThenWait).
	viaPoller
)

// maxIdleWorkers bounds the goroutines kept waiting for jobs; more may run
// at once, and those beyond the bound end when their job does.
const maxIdleWorkers = 64

// NewServer returns a server that routes to h and writes through send.
// send must be safe for concurrent use and must not block for long.
func NewServer(h Handler, send func([]byte) error) *Server {
	return &Server{handler: h, send: send, inflight: map[idKey]context.CancelFunc{}, quit: make(chan struct{})}
}

// OnPanic sets a hook told about every recovered panic (for logs).
func (s *Server) OnPanic(f func(method string, v any, stack []byte)) { s.onPanic = f }

// Deliver handles one raw message. Call it from one goroutine so that
// Accept sees messages in arrival order.
func (s *Server) Deliver(msg []byte) { s.deliver(msg, s.send, false, viaScheduler) }

// DeliverTo is Deliver with the message's one reply (if it gets one) sent
// to sink instead of the server's writer: a caller blocked on its own
// request gets exactly that request's answer, without matching ids. It
// reports whether a reply will come (false for a notification).
func (s *Server) DeliverTo(msg []byte, sink func([]byte) error) bool {
	replies, _ := s.deliver(msg, sink, false, viaScheduler)
	return replies
}

// DeliverThenWait is Deliver for a carrier whose delivering goroutine
// waits for its next message in the Go poller right after (the stdio
// carrier reads a pipe through the poller), with more set when the next
// message is already at hand. A job is then handed to its worker through
// the poller (see worker.bell): when the delivering goroutine parks, its thread
// polls and runs the job, and no idle thread is woken to start it (issue
// 16). With more, the job starts on another thread at once, as Deliver
// starts it, so it runs while the next message is read. A carrier whose
// goroutine may block elsewhere (a blocking read, a channel) must use
// Deliver: a job rung for it would wait until some thread polls.
func (s *Server) DeliverThenWait(msg []byte, more bool) {
	if !s.bells.Load() {
		s.bells.Store(true)
	}
	how := viaPoller
	if more {
		how = viaScheduler
	}
	s.deliver(msg, s.send, false, how)
}

// DeliverInline is DeliverTo, except that a Quick job is not handed to a
// worker, nor is the first half of a job split in two (Answer.Begin): it
// comes back as run, which the caller must call exactly once,
// on the goroutine that waits for the reply, after letting go of whatever
// keeps its deliveries in order (so other deliveries do not wait for the
// job). The job keeps everything a pooled one has: its context, which
// $/cancelRequest and Close cancel from other goroutines, its place in
// the in-flight set, and its one reply to sink. run is nil when there is
// nothing to run.
func (s *Server) DeliverInline(msg []byte, sink func([]byte) error) (replies bool, run func()) {
	return s.deliver(msg, sink, true, viaScheduler)
}

func (s *Server) deliver(msg []byte, sink func([]byte) error, inline bool, how handOff) (bool, func()) {
	req, rpcErr := Decode(msg)
	if rpcErr != nil {
		var id ID
		if req != nil {
			id = req.ID
			if req.Method != "" && req.IsNotification() {
				return false, nil // a notification is never answered, even a malformed one
			}
		}
		// Unreadable input gets an error with a null id: JSON-RPC allows it,
		// and the client learns that something it sent was dropped.
		replyTo(sink, id, nil, rpcErr)
		return true, nil
	}
	req.sink = sink
	if req.Method == PingMethod {
		// Ahead of everything, even after shutdown: a ping only proves the
		// client is alive, which the carrier saw when it read the bytes.
		if !req.IsNotification() {
			replyTo(sink, req.ID, struct{}{}, nil)
		}
		return !req.IsNotification(), nil
	}
	if req.Method == CancelMethod {
		// Handled ahead of everything and never blocks. Sent as a request
		// (with an id) it is answered like any request.
		err := s.cancel(req.Params)
		if !req.IsNotification() {
			replyTo(sink, req.ID, nil, err)
		}
		return !req.IsNotification(), nil
	}
	return !req.IsNotification(), s.dispatch(req, inline, how)
}

// DeliverError answers a message the framer could not read whole.
func (s *Server) DeliverError(err error) { s.DeliverErrorTo(err, s.send) }

// DeliverErrorTo is DeliverError with the answer sent to sink.
func (s *Server) DeliverErrorTo(err error, sink func([]byte) error) {
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) {
		replyTo(sink, IDFromHead(tooLarge.Head), nil, &Error{Code: CodeMessageTooLarge, Message: tooLarge.Error()})
		return
	}
	replyTo(sink, nil, nil, Errorf(CodeParseError, "parse error: %v", err))
}

// Notify sends a notification to the client.
func (s *Server) Notify(method string, params any) error {
	msg, err := EncodeNotification(method, params)
	if err != nil {
		return fmt.Errorf("encode notification %q: %w", method, err)
	}
	return s.send(msg)
}

// Close stops taking requests (later ones are answered with CodeShutDown),
// cancels nothing, and waits until every in-flight request has replied or ctx
// ends.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.quitMu.Do(func() { // no job starts after closed is set
		s.quitting.Store(true)
		close(s.quit)
		s.poolMu.Lock()
		for _, w := range s.idle {
			if w.bell != nil {
				w.bell.Ring()
			}
		}
		s.poolMu.Unlock()
	})
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close: requests still running: %w", ctx.Err())
	}
}

// Replies counts the requests answered so far: a waiter can tell a server
// that still makes progress from one that is stuck.
func (s *Server) Replies() uint64 { return s.replies.Load() }

// CancelAll cancels every in-flight request.
func (s *Server) CancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.inflight {
		cancel()
	}
}

// dispatch admits req. With inline, a Quick job is returned to be run by
// the caller instead of starting on a worker.
func (s *Server) dispatch(req *Request, inline bool, how handOff) (run func()) {
	key := req.ID.key()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		if !req.IsNotification() {
			s.reply(req, nil, Errorf(CodeShutDown, "runtime is shut down: %s refused", req.Method))
		}
		return nil
	case !req.IsNotification() && s.inflight[key] != nil:
		s.mu.Unlock()
		s.reply(req, nil, Errorf(CodeInvalidRequest, "invalid request: id %s is already in use by a running request", req.ID))
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	if !req.IsNotification() {
		s.inflight[key] = cancel
	}
	s.wg.Add(1)
	s.mu.Unlock()

	answer := s.accept(req)
	if answer.Job == nil {
		s.finish(req, ctx, cancel, answer.Result, answer.Err)
		return nil
	}
	job := func() {
		result, err := s.run(req, ctx, answer.Job)
		s.finish(req, ctx, cancel, result, err)
	}
	if inline && answer.Quick {
		return job
	}
	if answer.Begin != nil && (inline || how == viaPoller) {
		begin := func() {
			if !s.begin(req, ctx, cancel, answer.Begin) {
				s.spawn(job, how)
			}
		}
		if inline {
			return begin
		}
		begin()
		return nil
	}
	s.spawn(job, how)
	return nil
}

// begin runs a request's Begin on this goroutine; false when it did not
// start (nothing was done, and the request is still the caller's to run).
// A panic in Begin is answered as an error.
func (s *Server) begin(req *Request, ctx context.Context, cancel context.CancelFunc, begin Begin) bool {
	var resumed atomic.Bool
	resume := func(finish Job) {
		result, err := s.run(req, ctx, finish)
		if resumed.CompareAndSwap(false, true) {
			s.finish(req, ctx, cancel, result, err)
		}
		// else: Begin panicked after starting, and the request has its
		// answer; finish still ran, to release what the work held.
	}
	started, err := s.tryBegin(req, ctx, begin, resume)
	if err != nil {
		if resumed.CompareAndSwap(false, true) {
			s.finish(req, ctx, cancel, nil, err)
		}
		return true
	}
	return started
}

func (s *Server) tryBegin(req *Request, ctx context.Context, begin Begin, resume func(Job)) (started bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = s.panicked(req.Method, v)
		}
	}()
	return begin(ctx, resume), nil
}

// spawn runs job on an idle worker, or on a new one if none is idle.
func (s *Server) spawn(job func(), how handOff) {
	s.poolMu.Lock()
	if n := len(s.idle); n > 0 {
		w := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.poolMu.Unlock()
		w.next <- job // buffered: never blocks, the worker is waiting for it
		if w.bell != nil {
			w.bell.Ring()
			if how == viaScheduler {
				// The worker is runnable once a thread polls: yielding
				// makes the scheduler wake one, which polls and runs it
				// (or this goroutine) while this thread goes on.
				runtime.Gosched()
			}
		}
		return
	}
	s.poolMu.Unlock()
	w := &worker{next: make(chan func(), 1)}
	if s.bells.Load() {
		w.bell, w.server = rawio.NewBell("shellport-worker-bell"), s
	}
	go s.work(w, job)
}

// work runs job, then waits for the next one while the pool has room and
// the server is open.
func (s *Server) work(w *worker, job func()) {
	if w.bell != nil {
		defer func() { _ = w.bell.Close() }() // Best effort.
	}
	for {
		job()
		s.poolMu.Lock()
		select {
		case <-s.quit:
			s.poolMu.Unlock()
			return
		default:
		}
		if len(s.idle) >= maxIdleWorkers {
			s.poolMu.Unlock()
			return
		}
		s.idle = append(s.idle, w)
		s.poolMu.Unlock()
		if job = s.nextJob(w); job == nil {
			return
		}
	}
}

// nextJob waits until spawn hands w a job, or the server closes (nil) while
// w is still on the idle list.
func (s *Server) nextJob(w *worker) func() {
	if w.bell != nil {
		w.bell.Wait(time.Time{}, w)
		select {
		case job := <-w.next:
			return job
		default: // the server is closing (or the bell broke): as below
		}
	}
	select {
	case job := <-w.next:
		return job
	case <-s.quit:
		if s.leave(w) {
			return nil
		}
		return <-w.next // spawn took w off the idle list: its job is on the way
	}
}

// leave takes w off the idle list; false if spawn took it off first.
func (s *Server) leave(w *worker) bool {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	for i, x := range s.idle {
		if x == w {
			s.idle = append(s.idle[:i], s.idle[i+1:]...)
			return true
		}
	}
	return false
}

func (s *Server) accept(req *Request) (answer Answer) {
	defer func() {
		if v := recover(); v != nil {
			answer = Answer{Err: s.panicked(req.Method, v)}
		}
	}()
	return s.handler.Accept(req)
}

func (s *Server) run(req *Request, ctx context.Context, job Job) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = s.panicked(req.Method, v)
		}
	}()
	return job(ctx)
}

func (s *Server) panicked(method string, v any) error {
	if s.onPanic != nil {
		s.onPanic(method, v, debug.Stack())
	}
	return Errorf(CodeInternalError, "internal error: %s panicked: %v", method, v)
}

// finish sends the one reply a request gets. A request the client cancelled
// is answered with CodeRequestCancelled whatever the job returned: the client
// asked to forget it, and must not act on a result it gave up on.
func (s *Server) finish(req *Request, ctx context.Context, cancel context.CancelFunc, result any, err error) {
	cancelled := ctx.Err() != nil
	s.mu.Lock()
	if !req.IsNotification() {
		delete(s.inflight, req.ID.key())
	}
	s.mu.Unlock()
	cancel()
	defer s.wg.Done()
	if req.IsNotification() {
		return
	}
	switch {
	case cancelled:
		s.reply(req, nil, Errorf(CodeRequestCancelled, "request cancelled: %s", req.Method))
	case err != nil:
		var rpcErr *Error
		if !errors.As(err, &rpcErr) {
			rpcErr = Errorf(CodeInternalError, "internal error: %s: %v", req.Method, err)
		}
		s.reply(req, nil, rpcErr)
	default:
		s.reply(req, result, nil)
	}
}

// cancel cancels the in-flight request whose id has the same Key as the one
// params name. Unknown ids are ignored; malformed params are an error for a
// cancel sent as a request, and ignored for a notification.
func (s *Server) cancel(params json.RawMessage) *Error {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.ID) == 0 || !validID(p.ID) {
		return Errorf(CodeInvalidParams, `invalid params for %s: "id" must be the number or string id of a request`, CancelMethod)
	}
	s.mu.Lock()
	cancel := s.inflight[ID(p.ID).key()]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// reply sends req's one reply to where req came from.
func (s *Server) reply(req *Request, result any, rpcErr *Error) {
	defer s.replies.Add(1)
	sink := req.sink
	if sink == nil {
		sink = s.send
	}
	replyTo(sink, req.ID, result, rpcErr)
}

func replyTo(sink func([]byte) error, id ID, result any, rpcErr *Error) {
	msg, err := EncodeResponse(id, result, rpcErr)
	if err != nil {
		msg, _ = EncodeResponse(id, nil, Errorf(CodeInternalError, "internal error: encode reply: %v", err))
	}
	_ = sink(msg) // a closed carrier has no one left to tell
}
