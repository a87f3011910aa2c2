package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxPendingNotices bounds the notices kept for a client that has not yet
// made a request able to carry them; the oldest are dropped first.
const maxPendingNotices = 64

// modernEra is the first protocol version without the initialize handshake.
// From it on, a server may send log messages only inside a request that
// asked for them (its _meta names a log level), never on its own.
const modernEra = "2026-07-28"

// notice passes a session notice (a background task finished) to the client
// as an MCP log message. A handshake-era client gets it at once, if it set a
// log level; for a client of the modern era it waits for the next tool call,
// whose request may carry a log level.
func (c *carrier) notice(text string) {
	c.mu.Lock()
	ss := c.ss
	modern := ss == nil || isModern(ss)
	if modern {
		c.pending = append(c.pending, text)
		if len(c.pending) > maxPendingNotices {
			c.pending = c.pending[len(c.pending)-maxPendingNotices:]
		}
	}
	c.mu.Unlock()
	if !modern {
		_ = ss.Log(context.Background(), logMessage(text)) // the client may be gone
	}
}

// flushNotices sends the waiting notices within a request that asked for
// log messages (its _meta names a log level), which in the modern era is
// the only way they may reach the client; a request that did not ask
// leaves them waiting.
func (c *carrier) flushNotices(ctx context.Context, meta sdk.Meta) {
	if _, asked := meta[sdk.MetaKeyLogLevel]; !asked {
		return
	}
	c.mu.Lock()
	ss, pending := c.ss, c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, text := range pending {
		_ = ss.Log(ctx, logMessage(text)) // the client may be gone
	}
}

func logMessage(text string) *sdk.LoggingMessageParams {
	return &sdk.LoggingMessageParams{Level: "info", Logger: "shellport", Data: text}
}

func isModern(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= modernEra
}
