package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/shellport/shellport/internal/carrier/inproc"
	"github.com/shellport/shellport/internal/core"
)

const callUsage = `usage: shellport call [--config FILE|JSON] [--cwd DIR] [--json] NAME [ARGS_JSON]

Runs one call of the tool NAME (as the config names it) in a fresh session
and prints what the model would read. ARGS_JSON is the tool's arguments as
a JSON object (default {}). Spill files the output names are kept.

  --config SPEC   the runtime config: a JSON file, or inline JSON starting with {
  --cwd DIR       the session's working directory (default: the current one)
  --json          print the whole result (text, isError, structuredContent,
                  the presentation) as JSON instead of the text

Exit status:
  a bash command (either profile):
                  the command's exit code; 128+N when signal N killed it;
                  124 when it timed out (whatever it exited with after)
  any other call: 0, or 1 when the result is an error (isError)
  1               the call could not be made (no session, a runtime error:
                  the message on stderr says why)
  2               a usage error: an unknown flag, a missing or extra
                  argument, ARGS_JSON that is not JSON, a bad config
`

func call(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("call")
	config := fs.String("config", "", "")
	cwd := fs.String("cwd", "", "")
	asJSON := fs.Bool("json", false, "")
	if code := parse(fs, args, 1, 2, callUsage, stdout, stderr); code >= 0 {
		return code
	}
	name, argsJSON := fs.Arg(0), "{}"
	if fs.NArg() == 2 {
		argsJSON = fs.Arg(1)
	}
	if !json.Valid([]byte(argsJSON)) {
		return usageError(fs.Name(), fmt.Sprintf("ARGS_JSON is not valid JSON: %q", argsJSON), callUsage, stderr)
	}
	dir := *cwd
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			fmt.Fprintf(stderr, "shellport call: %v\n", err)
			return 1
		}
	}
	cfg, err := loadConfig(*config, "")
	if err != nil {
		return usageError(fs.Name(), err.Error(), callUsage, stderr)
	}
	helper, helperErr := spawnHelper()
	conn := inproc.OpenOptions(core.Options{Config: cfg, KeepSpill: true, SpawnHelper: helper, SpawnHelperNotFound: helperErr})
	defer conn.Close()

	var session struct {
		Session string `json:"session"`
	}
	if err := request(conn, 1, "session/new", map[string]any{"cwd": dir}, &session); err != nil {
		fmt.Fprintf(stderr, "shellport call: %v\n", err)
		return 1
	}
	var result core.CallResult
	params := map[string]any{"session": session.Session, "name": name, "arguments": json.RawMessage(argsJSON)}
	if err := request(conn, 2, "tools/call", params, &result); err != nil {
		fmt.Fprintf(stderr, "shellport call: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(result) // stdout is ours; nothing to do if it is closed
	} else {
		for _, c := range result.Content {
			fmt.Fprint(stdout, c.Text)
			if len(c.Text) > 0 && c.Text[len(c.Text)-1] != '\n' {
				fmt.Fprintln(stdout)
			}
		}
	}
	return exitStatus(result)
}

// exitStatus is call's exit status for a result (see callUsage). A bash
// command's result is the one whose structuredContent has the dialect's
// keys (exitCode and timedOut among them).
func exitStatus(res core.CallResult) int {
	if res.IsError {
		return 1
	}
	s := res.StructuredContent
	timedOut, isBash := s["timedOut"].(bool)
	if _, ok := s["exitCode"]; !ok || !isBash {
		return 0
	}
	if timedOut {
		return 124
	}
	if name, ok := s["signal"].(string); ok && name != "" {
		if n := signalNumber(name); n > 0 {
			return 128 + n
		}
		return 1
	}
	if code, ok := s["exitCode"].(float64); ok && code >= 0 && code <= 255 && code == float64(int(code)) {
		return int(code)
	}
	return 1 // no status is known (a shell that vanished)
}

// signalNumber is the number of a signal the runtime named ("SIGKILL", or
// "signal 42" for one without a name).
func signalNumber(name string) int {
	if n := unix.SignalNum(name); n != 0 {
		return int(n)
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "signal ")); err == nil && n > 0 && n < 128 {
		return n
	}
	return 0
}

// request makes one JSON-RPC call over conn and decodes its result.
func request(conn *inproc.Conn, id int, method string, params any, dst any) error {
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	reply, err := conn.Call(msg)
	if err != nil {
		return err
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &resp); err != nil {
		return fmt.Errorf("%s: unreadable reply: %w", method, err)
	}
	if resp.Error != nil {
		return fmt.Errorf("%s", resp.Error.Message)
	}
	return json.Unmarshal(resp.Result, dst)
}
