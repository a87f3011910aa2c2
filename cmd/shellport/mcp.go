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
  --config SPEC    the runtime config, as a JSON file or inline JSON
  --cwd DIR        the session's working directory
`

func mcpCommand(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	f, err := parseFlags(args, []string{"profile", "config", "cwd"}, []string{"help"})
	if err != nil {
		fmt.Fprintf(stderr, "shellport mcp: %v\n%s", err, mcpUsage)
		return 2
	}
	if f.bools["help"] {
		fmt.Fprint(stdout, mcpUsage)
		return 0
	}
	if len(f.rest) > 0 {
		fmt.Fprintf(stderr, "shellport mcp: unexpected argument %q\n%s", f.rest[0], mcpUsage)
		return 2
	}
	cwd := f.values["cwd"]
	if cwd == "" {
		cwd = "."
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		fmt.Fprintf(stderr, "shellport mcp: --cwd: %v\n", err)
		return 2
	}
	cfg, err := loadConfig(f.values["config"], f.values["profile"])
	if err != nil {
		fmt.Fprintf(stderr, "shellport mcp: %v\n", err)
		return 2
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
