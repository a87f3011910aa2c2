package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/carrier/stdio"
	"github.com/shellport/shellport/internal/core"
)

const serveUsage = `usage: shellport serve [--config FILE|JSON] [--log FILE] [--expect-version V] [--heartbeat D]

Serves the runtime over newline-delimited JSON-RPC 2.0 on stdin and stdout
(docs/PROTOCOL.md). stdout carries protocol messages only. It answers the
requests it has read when its input ends, then exits; it also exits on the
exit notification, SIGTERM, SIGINT or SIGHUP, when its parent exits or
nobody reads its output, and after killing every process it started.

  --config SPEC          the runtime config: a JSON file, or inline JSON
                         starting with {; a bad one is reported to the first
                         request
  --log FILE             write diagnostics to FILE instead of stderr
  --expect-version V     refuse to start unless this is version V
  --heartbeat D          exit when nothing arrives on stdin for D (10s, 1m);
                         initialize reports it as heartbeatMs

Exit status: 0 after a normal end, 1 when it could not start or read its
input, 2 for a usage error.
`

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve")
	config := fs.String("config", "", "")
	logFile := fs.String("log", "", "")
	expect := fs.String("expect-version", "", "")
	beat := fs.String("heartbeat", "", "")
	if code := parse(fs, args, 0, 0, serveUsage, stdout, stderr); code >= 0 {
		return code
	}
	heartbeat, err := parseHeartbeat(*beat)
	if err != nil {
		return usageError(fs.Name(), err.Error(), serveUsage, stderr)
	}
	if want := *expect; want != "" && want != core.Version {
		fmt.Fprintf(stderr, "shellport serve: the client expects version %q but this executable is version %q\n", want, core.Version)
		return 1
	}
	logw := stderr
	if path := *logFile; path != "" {
		file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "shellport serve: open log: %v\n", err)
			return 1
		}
		defer file.Close()
		logw = file
	}
	cfg, cfgErr := loadConfig(*config, "")
	if cfgErr != nil {
		// Serve anyway: the client learns the reason from its first reply
		// instead of from a pipe that closed without a word.
		fmt.Fprintf(logw, "shellport serve: %v\n", cfgErr)
	}

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)
	// Handled rather than fatal: a write to an output nobody reads then
	// fails with EPIPE, and Serve shuts down cleanly. (Handled, not
	// ignored: an ignored SIGPIPE would be inherited by every command.)
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	parent := stdio.WatchParent()
	go func() {
		select {
		case sig := <-signals:
			fmt.Fprintf(logw, "shellport serve: %v: shutting down\n", sig)
			cancel()
		case <-parent:
			// The host died (SIGKILL of Python leaves no one to send exit):
			// kill everything now, not at the calls' timeouts.
			fmt.Fprintf(logw, "shellport serve: the parent process exited: shutting down\n")
			cancel()
		case <-ctx.Done():
		}
	}()

	helper, helperErr := spawnHelper()
	opts := core.Options{Config: cfg, ConfigErr: cfgErr, Log: logw, SpawnHelper: helper, SpawnHelperNotFound: helperErr, Heartbeat: heartbeat}
	if err := stdio.Serve(ctx, stdin, stdout, opts); err != nil {
		fmt.Fprintf(logw, "shellport serve: read stdin: %v\n", err)
		return 1
	}
	return 0
}

// minHeartbeat is the shortest --heartbeat accepted: a client has to get a
// message through its channel within it, over a network and under load.
const minHeartbeat = 100 * time.Millisecond

// parseHeartbeat reads --heartbeat: a Go duration ("10s", "1m30s"); empty
// or "0" turns the heartbeat off.
func parseHeartbeat(value string) (time.Duration, error) {
	if value == "" || value == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return 0, fmt.Errorf("--heartbeat %q is not a duration such as 10s or 1m", value)
	}
	if d < minHeartbeat {
		return 0, fmt.Errorf("--heartbeat %v is shorter than the shortest allowed, %v", d, minHeartbeat)
	}
	return d, nil
}
