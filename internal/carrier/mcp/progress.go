package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxProgressLine bounds the output line a progress message quotes.
const maxProgressLine = 200

// callProgress reports one running call to a client that asked for progress
// (its request carried a progress token): every interval, the time the call
// has run, and the last line of output once there is one.
type callProgress struct {
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup

	mu       sync.Mutex
	lastLine string
}

// startProgress reports progress of the call until stop.
func (c *carrier) startProgress(ctx context.Context, ss *sdk.ServerSession, token any) *callProgress {
	p := &callProgress{start: time.Now(), done: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(c.interval)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				elapsed := now.Sub(p.start)
				_ = ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ // the client may be gone
					ProgressToken: token,
					Progress:      elapsed.Round(time.Millisecond).Seconds(),
					Message:       p.message(elapsed),
				})
			}
		}
	}()
	return p
}

// stop ends the reports; none is sent after it returns, so none follows
// the call's result.
func (p *callProgress) stop() {
	close(p.done)
	p.wg.Wait()
}

// output takes a piece of the call's live output as it is produced (the
// bridge's router hands it each tools/output of the call); the next
// progress message quotes its last line.
func (p *callProgress) output(text string) {
	line := lastLine(text)
	if line == "" {
		return
	}
	p.mu.Lock()
	p.lastLine = line
	p.mu.Unlock()
}

// message is the progress text: "running for 12s", then ": " and the last
// line of output when there is one.
func (p *callProgress) message(elapsed time.Duration) string {
	msg := fmt.Sprintf("running for %s", elapsed.Truncate(time.Second))
	p.mu.Lock()
	line := p.lastLine
	p.mu.Unlock()
	if line != "" {
		msg += ": " + line
	}
	return msg
}

// lastLine is the last non-blank line of text, cut to maxProgressLine bytes
// on a UTF-8 boundary.
func lastLine(text string) string {
	text = strings.TrimRight(text, " \t\r\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	text = strings.TrimSpace(text)
	if len(text) <= maxProgressLine {
		return text
	}
	cut := maxProgressLine
	for cut > 0 && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return text[:cut] + "…"
}
