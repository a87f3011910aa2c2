// Package stdio is the carrier of `shellport serve`: one runtime driven by
// newline-delimited JSON-RPC on a pair of streams (stdin and stdout).
//
// stdout carries protocol messages only. Serve returns after the exit
// notification, when ctx ends (a signal, or the host's death: see
// WatchParent), when nobody reads the output any more, when the client was
// silent for longer than its heartbeat (core.Options.Heartbeat), or at end
// of input
// once the requests already read are answered — in every case after the
// runtime has killed every process it started.
package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/rpc"
)

// Serve runs a runtime made from opts over in and out until one of the ends
// described in the package documentation. opts.Send is replaced by a writer
// of out. It returns the error that ended reading, if any (end of input is
// not one).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts core.Options) error {
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	// A reply that cannot be written means nobody will read any: the host
	// is gone, so everything stops now instead of at the calls' timeouts.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Pipes are read and written through descriptors of their own, in the
	// Go poller (pipe_linux.go); readerGone still watches the one given.
	pollIn, pollOut, polled, closeStreams := pollStreams(in, out)
	defer closeStreams()
	var writeFailed sync.Once
	w := rpc.NewFrameWriter(pollOut)
	opts.Send = func(msg []byte) error {
		err := w.Write(msg)
		if err != nil && !errors.Is(err, os.ErrClosed) { // closed: Serve has returned
			writeFailed.Do(func() {
				fmt.Fprintf(logw, "shellport serve: write output: %v: shutting down\n", err)
				cancel()
			})
		}
		return err
	}
	rt := core.New(opts)

	ctx, in, stopHeartbeat := watchHeartbeat(ctx, pollIn, opts.Heartbeat, logw)
	defer stopHeartbeat()

	inputDone := make(chan error, 1)
	go func() { inputDone <- readLoop(rt, in, polled) }()

	var readErr error
	select {
	case readErr = <-inputDone:
		// Answer what was already asked: every call is bounded by its tool's
		// timeout, so Drain gives up once no call has ended for the longest
		// one the config allows; an exit notification, ctx or an output
		// nobody reads any more cuts the wait short.
		drainCtx, stopDrain := context.WithCancel(context.Background())
		gone := readerGone(out)
		go func() {
			select {
			case <-rt.ExitRequested():
			case <-ctx.Done():
			case <-gone:
				fmt.Fprintf(logw, "shellport serve: nobody reads the output any more: shutting down\n")
			case <-drainCtx.Done():
			}
			stopDrain()
		}()
		_ = rt.Drain(drainCtx) // on timeout Close below cancels what is left
		stopDrain()
	case <-rt.ExitRequested():
	case <-ctx.Done():
	}
	if err := rt.Close(); err != nil {
		fmt.Fprintf(logw, "shellport serve: close: %v\n", err)
	}
	return readErr
}

// waitReporter is the reader of a stdin read through the Go poller.
type waitReporter interface {
	// Waited reports whether a read waited in the poller since the last
	// call.
	Waited() bool
}

// readLoop feeds every frame to the runtime until end of input. The limit
// is read again before every frame: an initialize (handled in line by
// Deliver) may have brought the client's own maxMessageBytes.
//
// When in is read through the Go poller (polled is its reader), a job is
// handed to its worker through the poller unless the next message is
// already buffered: the thread that read the request runs it as soon as
// this goroutine waits for input again (core.Runtime.DeliverThenWait). If
// the next message came before this goroutine had to wait, that thread
// has not polled yet: the goroutine yields, so that another thread polls
// and starts the job.
func readLoop(rt *core.Runtime, in io.Reader, polled waitReporter) error {
	r := rpc.NewFrameReader(in, rt.MaxMessage())
	handedOff := false // a job may wait for this thread to poll
	for {
		r.SetLimit(rt.MaxMessage())
		msg, err := r.Read()
		if handedOff && !polled.Waited() {
			runtime.Gosched()
		}
		handedOff = false
		var tooLarge *rpc.TooLargeError
		switch {
		case err == nil && polled != nil:
			more := r.Buffered()
			rt.DeliverThenWait(msg, more)
			handedOff = !more
		case err == nil:
			rt.Deliver(msg)
		case errors.As(err, &tooLarge):
			rt.DeliverError(err)
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

// WatchParent returns a channel that is closed when the process that
// started this one exits: the host of `shellport serve` is gone, even if
// something else still holds its end of stdin open. It never closes when
// there is no parent to watch (a parent outside this pid namespace, or
// init).
func WatchParent() <-chan struct{} { return watchParent() }
