// Command shellport is the standalone shellport runtime.
//
//	shellport serve [--config FILE|JSON] [--log FILE] [--expect-version V] [--heartbeat D]
//	shellport call [--config FILE|JSON] [--cwd DIR] [--json] NAME [ARGS_JSON]
//	shellport mcp [--profile NAME] [--config FILE|JSON] [--cwd DIR]
//	shellport version [--sha256]
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
// would read; its exit status is 0, or 1 when the result is an error.
//
// mcp serves the tools to one Model Context Protocol client on stdin and
// stdout; the connection is one session, and everything it started is
// killed when the client goes.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shellport/shellport/internal/core"
)

const usage = `usage:
  shellport serve [--config FILE|JSON] [--log FILE] [--expect-version V] [--heartbeat D]
  shellport call [--config FILE|JSON] [--cwd DIR] [--json] NAME [ARGS_JSON]
  shellport mcp [--profile NAME] [--config FILE|JSON] [--cwd DIR]
  shellport version [--sha256]
`

func main() {
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
	case "version", "--version", "-v":
		return version(args[1:], stdout, stderr)
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "shellport: unknown command %q\n%s", args[0], usage)
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

// flags is a tiny parser for --name VALUE and --name=VALUE; the commands
// have few flags and positional arguments that may start with '-' are rare.
type flags struct {
	values map[string]string
	bools  map[string]bool
	rest   []string
}

func parseFlags(args []string, valued, boolean []string) (*flags, error) {
	f := &flags{values: map[string]string{}, bools: map[string]bool{}}
	isValued := map[string]bool{}
	for _, n := range valued {
		isValued[n] = true
	}
	isBool := map[string]bool{}
	for _, n := range boolean {
		isBool[n] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			f.rest = append(f.rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "--") {
			f.rest = append(f.rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case isBool[name] && !hasValue:
			f.bools[name] = true
		case isValued[name] && hasValue:
			f.values[name] = value
		case isValued[name] && i+1 < len(args):
			i++
			f.values[name] = args[i]
		case isValued[name]:
			return nil, fmt.Errorf("flag --%s needs a value", name)
		default:
			return nil, fmt.Errorf("unknown flag %q", a)
		}
	}
	return f, nil
}

// loadConfig reads --config: inline JSON when it starts with '{', else a
// file path. A profile, when not empty, replaces the config's before the
// config is checked against it.
func loadConfig(spec, profile string) (core.Config, error) {
	data := []byte(spec)
	if !strings.HasPrefix(strings.TrimSpace(spec), "{") && spec != "" {
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
	if err != nil && !strings.HasPrefix(strings.TrimSpace(spec), "{") && spec != "" {
		err = fmt.Errorf("config %q: %w", spec, err)
	}
	return cfg, err
}
