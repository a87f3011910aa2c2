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

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, []string{"config", "log", "expect-version", "heartbeat"}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "shellport serve: %v\n%s", err, usage)
		return 2
	}
	if len(f.rest) > 0 {
		fmt.Fprintf(stderr, "shellport serve: unexpected argument %q\n", f.rest[0])
		return 2
	}
	heartbeat, err := parseHeartbeat(f.values["heartbeat"])
	if err != nil {
		fmt.Fprintf(stderr, "shellport serve: %v\n", err)
		return 2
	}
	if want := f.values["expect-version"]; want != "" && want != core.Version {
		fmt.Fprintf(stderr, "shellport serve: the client expects version %q but this executable is version %q\n", want, core.Version)
		return 1
	}
	logw := stderr
	if path := f.values["log"]; path != "" {
		file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "shellport serve: open log: %v\n", err)
			return 1
		}
		defer file.Close()
		logw = file
	}
	cfg, cfgErr := loadConfig(f.values["config"], "")
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
