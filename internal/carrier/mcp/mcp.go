// Package mcp is the carrier of `shellport mcp`: it serves a runtime's tools
// to one Model Context Protocol client over a pair of streams (stdin and
// stdout), built on the official Go SDK. One MCP connection is one session.
//
//	err := mcp.Serve(ctx, os.Stdin, os.Stdout, mcp.Options{Core: opts, Cwd: dir})
//
// The carrier drives internal/core through the same JSON-RPC message set as
// the C ABI and `shellport serve` (over an in-process connection): an MCP
// tools/call becomes our tools/call in the connection's session, the
// client's notifications/cancelled our $/cancelRequest, our session/notice
// an MCP log message. Tool names, descriptions and input schemas are the
// runtime's, unchanged; a result's content, isError, structuredContent and
// _meta are the runtime's, byte for byte.
//
// Serve returns when the client closes its end, when the output breaks or
// when ctx ends — in every case after killing every process the session
// started. Unlike `shellport serve`, end of input does not wait for calls in
// flight: an MCP client that closes stdin is gone, and nobody is left to
// read their results.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellport/shellport/internal/core"
)

// DefaultProgressInterval is how often a call whose client asked for
// progress reports it.
const DefaultProgressInterval = time.Second

// Options configure Serve.
type Options struct {
	// Core configures the runtime; Core.Send is the carrier's own.
	Core core.Options
	// Cwd is the session's working directory, an absolute path.
	Cwd string
	// ProgressInterval is the time between two progress notifications of a
	// call; zero means DefaultProgressInterval.
	ProgressInterval time.Duration
}

// Serve serves one MCP client on in and out until one of the ends described
// in the package documentation. A runtime that cannot start (a bad config,
// a missing cwd) is reported before anything is read.
func Serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser, opts Options) error {
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = DefaultProgressInterval
	}
	logw := opts.Core.Log
	if logw == nil {
		logw = io.Discard
	}
	b, tools, err := openBridge(opts.Core, opts.Cwd)
	if err != nil {
		return err
	}
	defer b.close()

	c := &carrier{bridge: b, interval: opts.ProgressInterval}
	srv := sdk.NewServer(&sdk.Implementation{Name: "shellport", Version: core.Version}, &sdk.ServerOptions{
		Instructions: fmt.Sprintf("Tools run in the working directory %s.", opts.Cwd),
		Logger:       slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	renamed := renamedTools(opts.Core.Config)
	for _, t := range tools {
		tool, err := mcpTool(t, renamed)
		if err != nil {
			return err
		}
		srv.AddTool(tool, c.handler(t.Name))
	}

	eof := make(chan struct{})
	reader := &eofReader{r: in, eof: eof}
	ss, err := srv.Connect(ctx, &sdk.IOTransport{Reader: reader, Writer: out, MaxLineLength: opts.Core.Config.MaxMessageBytes}, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	c.setSession(ss)
	go b.route(c.notice)

	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
	case <-eof:
		// The client is gone: kill what it started now rather than after
		// the calls in flight notice, then let the session wind down.
		_ = b.close()
		err = <-ended
	case <-ctx.Done():
		_ = b.close()
		_ = ss.Close()
		err = <-ended
	}
	if cerr := b.close(); cerr != nil {
		fmt.Fprintf(logw, "shellport mcp: close: %v\n", cerr)
	}
	<-b.routed
	if err != nil && ctx.Err() == nil && !isEnd(err) {
		return fmt.Errorf("mcp session: %w", err)
	}
	return nil
}

// carrier answers the MCP side of one connection.
type carrier struct {
	bridge   *bridge
	interval time.Duration

	mu      sync.Mutex
	ss      *sdk.ServerSession
	pending []string // notices waiting for a request that may carry them
}

func (c *carrier) setSession(ss *sdk.ServerSession) {
	c.mu.Lock()
	c.ss = ss
	c.mu.Unlock()
}

// eofReader closes eof once reading fails (end of input, a broken pipe).
type eofReader struct {
	r    io.ReadCloser
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

func (e *eofReader) Close() error { return e.r.Close() }

// isEnd reports whether err is how a session normally ends: the client
// closed its end.
func isEnd(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, context.Canceled)
}
