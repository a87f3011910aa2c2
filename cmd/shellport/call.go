package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/shellport/shellport/internal/carrier/inproc"
	"github.com/shellport/shellport/internal/core"
)

func call(args []string, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, []string{"config", "cwd"}, []string{"json"})
	if err != nil {
		fmt.Fprintf(stderr, "shellport call: %v\n%s", err, usage)
		return 2
	}
	if len(f.rest) < 1 || len(f.rest) > 2 {
		fmt.Fprintf(stderr, "shellport call: want NAME and optional ARGS_JSON\n%s", usage)
		return 2
	}
	name, argsJSON := f.rest[0], "{}"
	if len(f.rest) == 2 {
		argsJSON = f.rest[1]
	}
	if !json.Valid([]byte(argsJSON)) {
		fmt.Fprintf(stderr, "shellport call: ARGS_JSON is not valid JSON: %q\n", argsJSON)
		return 2
	}
	cwd := f.values["cwd"]
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			fmt.Fprintf(stderr, "shellport call: %v\n", err)
			return 1
		}
	}
	cfg, err := loadConfig(f.values["config"], "")
	if err != nil {
		fmt.Fprintf(stderr, "shellport call: %v\n", err)
		return 2
	}
	helper, helperErr := spawnHelper()
	conn := inproc.OpenOptions(core.Options{Config: cfg, KeepSpill: true, SpawnHelper: helper, SpawnHelperNotFound: helperErr})
	defer conn.Close()

	var session struct {
		Session string `json:"session"`
	}
	if err := request(conn, 1, "session/new", map[string]any{"cwd": cwd}, &session); err != nil {
		fmt.Fprintf(stderr, "shellport call: %v\n", err)
		return 1
	}
	var result core.CallResult
	params := map[string]any{"session": session.Session, "name": name, "arguments": json.RawMessage(argsJSON)}
	if err := request(conn, 2, "tools/call", params, &result); err != nil {
		fmt.Fprintf(stderr, "shellport call: %v\n", err)
		return 1
	}
	if f.bools["json"] {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(result)
	} else {
		for _, c := range result.Content {
			fmt.Fprint(stdout, c.Text)
			if len(c.Text) > 0 && c.Text[len(c.Text)-1] != '\n' {
				fmt.Fprintln(stdout)
			}
		}
	}
	if result.IsError {
		return 1
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
