// Command shellport is the standalone shellport runtime.
//
//	shellport serve [--config FILE|JSON] [--log FILE] [--expect-version V] [--heartbeat D]
//	shellport call [--config FILE|JSON] [--cwd DIR] [--json] NAME [ARGS_JSON]
//	shellport mcp [--profile NAME] [--config FILE|JSON] [--cwd DIR]
//	shellport version [--sha256]
//
// Every command takes --help. Flags come before the positional arguments
// (the standard flag package's rule); each may be written -name or --name.
//
// serve speaks newline-delimited JSON-RPC 2.0 on stdin and stdout (the
// message set of docs/PROTOCOL.md); stdout carries protocol messages only and
// diagnostics go to stderr or the --log file. It exits after the exit
// notification, on SIGTERM, SIGINT or SIGHUP, as soon as its parent process
// exits or nobody reads stdout any more (the host is gone), with --heartbeat
// D when nothing arrives on stdin for D (for channels such as kubectl exec
// that may never deliver end of input), and at end of input once the
// requests already read are answered — in every case after killing every
// process it started.
//
// call runs one tool call in a fresh session and prints what the model
// would read; its exit status follows the call (see callUsage).
//
// mcp serves the tools to one Model Context Protocol client on stdin and
// stdout; the connection is one session, and everything it started is
// killed when the client goes.
//
// Exit statuses: 0 on success, 2 for a usage error (an unknown command or
// flag, a missing or extra argument, a bad config), 1 when the command
// failed otherwise; call follows the tool call instead.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/spawnhelper"
)

const usage = `usage: shellport COMMAND [FLAGS] [ARGS]

Commands:
  serve     the runtime over newline-delimited JSON-RPC on stdin and stdout
  call      run one tool call from a shell and print what the model would read
  mcp       serve the tools to one MCP client on stdin and stdout
  version   print the version

Run shellport COMMAND --help for the command's flags and exit statuses.
`

func main() {
	// This process is the runtime's own: nothing in it changes its umask,
	// user, groups or limits, so one-shot commands may start through a
	// supervisor exec'd ahead of need (spawnhelper.UseSpares).
	spawnhelper.UseSpares()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdin, stdout, stderr)
	case "call":
		return call(args[1:], stdout, stderr)
	case "mcp":
		return mcpCommand(args[1:], readCloser(stdin), writeCloser{stdout}, stderr)
	case "version", "--version", "-version":
		return version(args[1:], stdout, stderr)
	case "help", "--help", "-help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "shellport: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// readCloser lets the MCP transport close stdin when it is done with it.
func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// writeCloser keeps stdout open when the MCP transport closes its writer:
// only the process exit closes it.
type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }

// newFlags returns the flag set of a subcommand. Its errors and its help
// are printed by parse, in our words and with the command's own usage.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("shellport "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses a subcommand's flags and checks how many arguments are
// left (between min and max). It returns -1 to go on, or the exit status
// to end with: 0 after --help (the usage on stdout), 2 after a usage error
// (the error and the usage on stderr, nothing on stdout).
func parse(fs *flag.FlagSet, args []string, min, max int, usage string, stdout, stderr io.Writer) int {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return 0
	case err != nil:
		return usageError(fs.Name(), flagError(err, args), usage, stderr)
	case fs.NArg() > max:
		return usageError(fs.Name(), fmt.Sprintf("unexpected argument %q", fs.Arg(max)), usage, stderr)
	case fs.NArg() < min:
		return usageError(fs.Name(), "missing arguments", usage, stderr)
	}
	return -1
}

// flagError words the flag package's errors as ours, with the flag as the
// user spelt it: unknown flag "--bogus", flag --config needs a value.
func flagError(err error, args []string) string {
	msg := err.Error()
	spelt := func(name string) string {
		for _, a := range args {
			if flag, _, _ := strings.Cut(a, "="); strings.TrimLeft(flag, "-") == name && strings.HasPrefix(flag, "-") {
				return flag
			}
		}
		return "-" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag %q", spelt(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("flag %s needs a value", spelt(name))
	}
	return msg
}

func usageError(name, msg, usage string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "%s: %s\n\n%s", name, msg, usage)
	return 2
}

// loadConfig reads --config: inline JSON when it starts with '{', else a
// file path. A profile, when not empty, replaces the config's before the
// config is checked against it.
func loadConfig(spec, profile string) (core.Config, error) {
	inline := strings.HasPrefix(strings.TrimSpace(spec), "{")
	data := []byte(spec)
	if !inline && spec != "" {
		var err error
		if data, err = os.ReadFile(spec); err != nil {
			return core.Config{}, fmt.Errorf("read config: %w", err)
		}
	}
	cfg, err := core.DecodeConfig(data)
	if err == nil {
		if profile != "" {
			cfg.Profile = profile
		}
		err = cfg.Check()
	}
	if err != nil && !inline && spec != "" {
		err = fmt.Errorf("config %q: %w", spec, err)
	}
	return cfg, err
}
