package rpc

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// splitServer answers "split" with a job split in two (Answer.Begin):
// Begin records that it ran and hands its resume to the test through
// resumes; "split-no" with a Begin that cannot start; "split-panic" with
// one that panics. The whole Job, run by a worker, says "worker".
func splitServer(t *testing.T) (s *Server, r *replies, resumes chan func(Job), ctxs chan context.Context, begun *atomic.Int32) {
	r = newReplies(t)
	resumes = make(chan func(Job), 10)
	ctxs = make(chan context.Context, 10)
	begun = new(atomic.Int32)
	worker := func(context.Context) (any, error) { return "worker", nil }
	h := HandlerFunc(func(req *Request) Answer {
		switch req.Method {
		case "split":
			return Answer{Job: worker, Begin: func(ctx context.Context, resume func(Job)) bool {
				begun.Add(1)
				ctxs <- ctx
				resumes <- resume
				return true
			}}
		case "split-no":
			return Answer{Job: worker, Begin: func(context.Context, func(Job)) bool { begun.Add(1); return false }}
		case "split-panic":
			return Answer{Job: worker, Begin: func(context.Context, func(Job)) bool { panic("boom in begin") }}
		}
		return Answer{Err: Errorf(CodeMethodNotFound, "method not found: %q", req.Method)}
	})
	s = NewServer(h, r.send)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.CancelAll()
		_ = s.Close(ctx)
	})
	return s, r, resumes, ctxs, begun
}

// A job split in two starts on the goroutine that runs what DeliverInline
// hands back, and ends on whichever goroutine resumes it: its finishing
// Job runs there and the reply goes to the delivery's sink, with no
// worker in between (issue 16).
func TestBeginRunsOnTheCallerAndEndsWhereResumed(t *testing.T) {
	s, _, resumes, _, begun := splitServer(t)
	mine := newReplies(t)
	replies, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":1,"method":"split"}`), mine.send)
	if !replies || run == nil {
		t.Fatalf("a split job: replies %v, run %v", replies, run != nil)
	}
	if begun.Load() != 0 {
		t.Fatal("Begin ran before the caller ran what DeliverInline handed back")
	}
	run()
	if begun.Load() != 1 {
		t.Fatal("Begin did not run on the caller's goroutine")
	}
	resume := <-resumes
	ended := make(chan struct{})
	go func() {
		resume(func(context.Context) (any, error) { return "finished where resumed", nil })
		close(ended)
	}()
	<-ended // the reply is sent by resume itself
	mine.mu.Lock()
	n := len(mine.all)
	mine.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d replies once resume returned, want 1", n)
	}
	if got := mine.wait("1")["result"]; got != "finished where resumed" {
		t.Fatalf("result %v", got)
	}
}

// A Begin that cannot start leaves the request to its Job on a worker; a
// panicking one is answered as an internal error; and a Begin is not
// tried by a plain Deliver, whose caller does not wait for the reply.
func TestBeginFallsBackAndAnswersPanics(t *testing.T) {
	s, r, _, _, begun := splitServer(t)
	mine := newReplies(t)
	_, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":1,"method":"split-no"}`), mine.send)
	run()
	if got := mine.wait("1")["result"]; got != "worker" || begun.Load() != 1 {
		t.Fatalf("result %v after %d Begins, want the worker's after 1", got, begun.Load())
	}
	_, run = s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":2,"method":"split-panic"}`), mine.send)
	run()
	if got := code(mine.wait("2")); got != CodeInternalError {
		t.Fatalf("a panic in Begin: code %d", got)
	}
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":3,"method":"split"}`))
	if got := r.wait("3")["result"]; got != "worker" || begun.Load() != 1 {
		t.Fatalf("Deliver: result %v after %d Begins", got, begun.Load())
	}
}

// A begun request stays in flight until resumed: $/cancelRequest ends the
// context Begin got and the reply is the cancellation whatever the
// finishing Job returns, a panic in that Job is answered as an error, and
// Close waits for a begun request's reply.
func TestBegunRequestIsCancellableAndAwaited(t *testing.T) {
	s, _, resumes, ctxs, _ := splitServer(t)
	mine := newReplies(t)
	_, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":"c","method":"split"}`), mine.send)
	run()
	ctx, resume := <-ctxs, <-resumes
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c"}}`))
	<-ctx.Done()
	resume(func(context.Context) (any, error) { return "too late", nil })
	if got := code(mine.wait(`"c"`)); got != CodeRequestCancelled {
		t.Fatalf("cancelled: code %d, want %d", got, CodeRequestCancelled)
	}

	_, run = s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":"p","method":"split"}`), mine.send)
	run()
	<-ctxs
	(<-resumes)(func(context.Context) (any, error) { panic("boom in finish") })
	if got := code(mine.wait(`"p"`)); got != CodeInternalError {
		t.Fatalf("a panic in the finishing job: code %d", got)
	}

	_, run = s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":"w","method":"split"}`), mine.send)
	run()
	<-ctxs
	resume = <-resumes
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Close(short); err == nil {
		t.Fatal("Close returned while a begun request had not replied")
	}
	resume(func(context.Context) (any, error) { return "done", nil })
	if got := mine.wait(`"w"`)["result"]; got != "done" {
		t.Fatalf("result %v", got)
	}
	long, cancel2 := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard
	defer cancel2()
	if err := s.Close(long); err != nil {
		t.Fatalf("Close after the reply: %v", err)
	}
}

// DeliverThenWait runs Begin on the delivering goroutine too: the stdio
// carrier's reader, about to wait for its next message.
func TestDeliverThenWaitBegins(t *testing.T) {
	s, r, resumes, _, begun := splitServer(t)
	s.DeliverThenWait([]byte(`{"jsonrpc":"2.0","id":1,"method":"split"}`), false)
	if begun.Load() != 1 {
		t.Fatal("DeliverThenWait did not run Begin on its goroutine")
	}
	(<-resumes)(func(context.Context) (any, error) { return "ok", nil })
	if got := r.wait("1")["result"]; got != "ok" {
		t.Fatalf("result %v", got)
	}
}
