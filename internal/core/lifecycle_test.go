package core_test

import (
	"sync"
	"testing"
	"time"

	"github.com/shellport/shellport/internal/testkit"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/testkit/lifecycle"
	"github.com/shellport/shellport/internal/testkit/livecheck"
	"github.com/shellport/shellport/internal/testkit/transcript"
)

// coreCarrier drives a Runtime directly: Deliver in, Send out.
type coreCarrier struct {
	rt    *core.Runtime
	mu    sync.Mutex
	queue [][]byte
	ready chan struct{}
}

func openCore(t *testing.T) transcript.Carrier { return openCoreFor(t) }

func openCoreFor(t testing.TB) transcript.Carrier {
	c := &coreCarrier{ready: make(chan struct{}, 1)}
	c.rt = core.New(core.Options{Send: c.send, SpawnHelper: testkit.SpawnHelper(t)})
	t.Cleanup(func() { _ = c.rt.Close() })
	return c
}

func (c *coreCarrier) send(msg []byte) error {
	c.mu.Lock()
	c.queue = append(c.queue, msg)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
	return nil
}

func (c *coreCarrier) Send(msg []byte) error { c.rt.Deliver(msg); return nil }

func (c *coreCarrier) Recv(timeout time.Duration) ([]byte, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			msg := c.queue[0]
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return msg, nil
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-timer.C:
			return nil, nil
		}
	}
}

// TestSessionLifecycle runs the issue-10 session-lifetime scenarios against
// the core itself (the carriers run them too).
func TestSessionLifecycle(t *testing.T) { lifecycle.RunAll(t, openCore) }

// TestLiveOutput runs the issue-17 live-output scenarios against the core
// itself (the carriers run them too).
func TestLiveOutput(t *testing.T) { livecheck.RunAll(t, livecheck.Open(openCore)) }
