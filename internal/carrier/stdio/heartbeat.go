package stdio

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// watchHeartbeat makes silence on in an end of the serve: it returns a
// reader to use instead of in, and a context derived from ctx that is
// cancelled when no byte has arrived on in for interval (after logging why
// to logw). With interval 0 it returns ctx and in unchanged.
//
// Channels such as `kubectl exec -i` neither deliver end of input when the
// client goes away nor kill the process they started, so without this a
// runtime whose client vanished would run, and keep its commands running,
// forever. Any input counts, so a busy client needs no extra message; an
// idle one sends $/ping (the runtime reports the interval in its answer to
// initialize). stop releases the watchdog.
func watchHeartbeat(ctx context.Context, in io.Reader, interval time.Duration, logw io.Writer) (_ context.Context, _ io.Reader, stop func()) {
	if interval <= 0 {
		return ctx, in, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	hb := &heartbeatReader{in: in, start: time.Now()}
	go func() {
		timer := time.NewTimer(interval)
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			silent := hb.silence()
			if silent < interval {
				timer.Reset(interval - silent)
				continue
			}
			fmt.Fprintf(logw, "shellport serve: no input from the client for %v (--heartbeat %v): shutting down\n", silent.Round(time.Millisecond), interval)
			cancel()
			return
		}
	}()
	return ctx, hb, cancel
}

// heartbeatReader notes the time of every read that brought bytes, on the
// monotonic clock (a wall-clock jump must not look like silence).
type heartbeatReader struct {
	in    io.Reader
	start time.Time
	last  atomic.Int64 // nanoseconds after start
}

func (r *heartbeatReader) Read(p []byte) (int, error) {
	n, err := r.in.Read(p)
	if n > 0 {
		r.last.Store(int64(time.Since(r.start)))
	}
	return n, err
}

// silence is how long ago the last bytes arrived (or the watch began).
func (r *heartbeatReader) silence() time.Duration {
	return time.Since(r.start) - time.Duration(r.last.Load())
}
