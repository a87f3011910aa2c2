package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/shellport/shellport/internal/carrier/mcp"
	"github.com/shellport/shellport/internal/core"
)

const mcpUsage = `usage: shellport mcp [--profile NAME] [--config FILE|JSON] [--cwd DIR]

Serves the tools to one MCP client over stdio (the Model Context Protocol:
newline-delimited JSON-RPC on stdin and stdout). The connection is one
session: its working directory is --cwd (default: the current directory),
and every process it starts is killed when the client disconnects.

  --profile NAME   oneshot (the default), persistent, anthropic or openai;
                   overrides the config's
  --config SPEC    the runtime config: a JSON file, or inline JSON starting with {
  --cwd DIR        the session's working directory

Exit status: 0 when the client disconnects or a signal ends it, 1 when the
session cannot be opened or the connection fails, 2 for a usage error
(including a bad config).
`

func mcpCommand(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := newFlags("mcp")
	profile := fs.String("profile", "", "")
	config := fs.String("config", "", "")
	cwdFlag := fs.String("cwd", ".", "")
	if code := parse(fs, args, 0, 0, mcpUsage, stdout, stderr); code >= 0 {
		return code
	}
	cwd, err := filepath.Abs(*cwdFlag)
	if err != nil {
		return usageError(fs.Name(), "--cwd: "+err.Error(), mcpUsage, stderr)
	}
	cfg, err := loadConfig(*config, *profile)
	if err != nil {
		return usageError(fs.Name(), err.Error(), mcpUsage, stderr)
	}

	// A client that vanishes breaks stdout; notice that as an error instead
	// of dying of SIGPIPE. Notify, not Ignore: an ignored signal would stay
	// ignored in every command the tools run.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case sig := <-signals:
			fmt.Fprintf(stderr, "shellport mcp: %v: shutting down\n", sig)
			cancel()
		case <-ctx.Done():
		}
	}()

	helper, helperErr := spawnHelper()
	opts := mcp.Options{
		Core: core.Options{Config: cfg, Log: stderr, SpawnHelper: helper, SpawnHelperNotFound: helperErr},
		Cwd:  cwd,
	}
	if err := mcp.Serve(ctx, stdin, stdout, opts); err != nil {
		fmt.Fprintf(stderr, "shellport mcp: %v\n", err)
		return 1
	}
	return 0
}
