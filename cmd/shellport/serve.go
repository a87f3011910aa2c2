package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/runtime"
)

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, []string{"config", "log", "expect-version"}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "shellport serve: %v\n%s", err, usage)
		return 2
	}
	if len(f.rest) > 0 {
		fmt.Fprintf(stderr, "shellport serve: unexpected argument %q\n", f.rest[0])
		return 2
	}
	if want := f.values["expect-version"]; want != "" && want != runtime.Version {
		fmt.Fprintf(stderr, "shellport serve: the client expects version %q but this executable is version %q\n", want, runtime.Version)
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
	cfg, cfgErr := loadConfig(f.values["config"])
	if cfgErr != nil {
		// Serve anyway: the client learns the reason from its first reply
		// instead of from a pipe that closed without a word.
		fmt.Fprintf(logw, "shellport serve: %v\n", cfgErr)
	}

	out := rpc.NewFrameWriter(stdout)
	rt := runtime.New(runtime.Options{Config: cfg, ConfigErr: cfgErr, Send: out.Write, Log: logw, SpawnHelper: spawnHelper()})

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)

	inputDone := make(chan error, 1)
	go func() { inputDone <- readLoop(rt, stdin) }()

	code := 0
	select {
	case err := <-inputDone:
		if err != nil {
			fmt.Fprintf(logw, "shellport serve: read stdin: %v\n", err)
			code = 1
		}
		// Answer what was already asked: every call is bounded by its tool's
		// timeout, and an exit notification or a signal cuts the wait short.
		ctx, cancel := context.WithTimeout(context.Background(), drainLimit)
		go func() {
			select {
			case <-rt.ExitRequested():
			case <-signals:
			case <-ctx.Done():
			}
			cancel()
		}()
		_ = rt.Drain(ctx) // on timeout Close below cancels what is left
		cancel()
	case <-rt.ExitRequested():
	case sig := <-signals:
		fmt.Fprintf(logw, "shellport serve: %v: shutting down\n", sig)
	}
	if err := rt.Close(); err != nil {
		fmt.Fprintf(logw, "shellport serve: close: %v\n", err)
	}
	return code
}

// drainLimit bounds the wait for in-flight calls at end of input; it is a
// little over the longest timeout a call may ask for.
const drainLimit = 11 * time.Minute

// readLoop feeds every frame to the runtime until end of input.
func readLoop(rt *runtime.Runtime, stdin io.Reader) error {
	in := rpc.NewFrameReader(stdin, rt.MaxMessage())
	for {
		msg, err := in.Read()
		var tooLarge *rpc.TooLargeError
		switch {
		case err == nil:
			rt.Deliver(msg)
		case errors.As(err, &tooLarge):
			rt.DeliverError(err)
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
