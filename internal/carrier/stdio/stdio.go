// Package stdio is the carrier of `shellport serve`: one runtime driven by
// newline-delimited JSON-RPC on a pair of streams (stdin and stdout).
//
// stdout carries protocol messages only. Serve returns after the exit
// notification, when ctx ends (a signal), when the client was silent for
// longer than its heartbeat (core.Options.Heartbeat), or at end of input
// once the requests already read are answered — in every case after the
// runtime has killed every process it started.
package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/rpc"
)

// drainLimit bounds the wait for in-flight calls at end of input; it is a
// little over the longest timeout a call may ask for.
const drainLimit = 11 * time.Minute

// Serve runs a runtime made from opts over in and out until one of the ends
// described in the package documentation. opts.Send is replaced by a writer
// of out. It returns the error that ended reading, if any (end of input is
// not one).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts core.Options) error {
	w := rpc.NewFrameWriter(out)
	opts.Send = w.Write
	rt := core.New(opts)
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	ctx, in, stopHeartbeat := watchHeartbeat(ctx, in, opts.Heartbeat, logw)
	defer stopHeartbeat()

	inputDone := make(chan error, 1)
	go func() { inputDone <- readLoop(rt, in) }()

	var readErr error
	select {
	case readErr = <-inputDone:
		// Answer what was already asked: every call is bounded by its tool's
		// timeout, and an exit notification or ctx cuts the wait short.
		drainCtx, cancel := context.WithTimeout(context.Background(), drainLimit)
		go func() {
			select {
			case <-rt.ExitRequested():
			case <-ctx.Done():
			case <-drainCtx.Done():
			}
			cancel()
		}()
		_ = rt.Drain(drainCtx) // on timeout Close below cancels what is left
		cancel()
	case <-rt.ExitRequested():
	case <-ctx.Done():
	}
	if err := rt.Close(); err != nil {
		fmt.Fprintf(logw, "shellport serve: close: %v\n", err)
	}
	return readErr
}

// readLoop feeds every frame to the runtime until end of input. The limit
// is read again before every frame: an initialize (handled in line by
// Deliver) may have brought the client's own maxMessageBytes.
func readLoop(rt *core.Runtime, in io.Reader) error {
	r := rpc.NewFrameReader(in, rt.MaxMessage())
	for {
		r.SetLimit(rt.MaxMessage())
		msg, err := r.Read()
		var tooLarge *rpc.TooLargeError
		switch {
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
