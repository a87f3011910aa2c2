package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient runs `shellport mcp ARGS` in-process on pipes (the executable's
// code path minus the exec) and connects the SDK's client to it.
func mcpClient(t *testing.T, args ...string) (*sdk.ClientSession, *bytes.Buffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(append([]string{"mcp"}, args...), inR, outW, &stderr)
		_ = outW.Close()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case code := <-exit:
			if code != 0 {
				t.Errorf("shellport mcp exited %d: %s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("shellport mcp did not exit when the client left")
		}
	})
	return cs, &stderr
}

func TestMCPFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"tools":{"str_replace_editor":{"name":"edit"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := mcpClient(t, "--profile", "persistent", "--config", cfg, "--cwd", dir)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != "bash edit" {
		t.Errorf("tools %v, want the persistent profile with the config's name for the editor", names)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "pwd"}})
	if err != nil || res.Content[0].(*sdk.TextContent).Text != dir+"\n" {
		t.Errorf("pwd in the session: %v %v", res, err)
	}
}

func TestMCPUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "usage: shellport mcp"},
		{[]string{"--bogus"}, 2, `unknown flag "--bogus"`},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--config", "/nonexistent.json"}, 2, "read config"},
		{[]string{"--cwd", "/nonexistent/dir"}, 1, `open session in "/nonexistent/dir"`},
		{[]string{"--profile", "turbo"}, 2, `unknown profile "turbo"`},
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"mcp"}, tc.args...), strings.NewReader(""), &out, &errOut)
		if code != tc.code || !strings.Contains(out.String()+errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, output %q%q; want exit %d saying %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.want)
		}
	}
}

// The executable exits on SIGTERM while a call runs, after killing what the
// session started.
func TestMCPSignalKillsEverything(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "shellport")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "mcp", "--profile", "persistent", "--cwd", dir)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	pidFile := filepath.Join(dir, "pid")
	go func() {
		_, _ = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bash", Arguments: map[string]any{
			"command": fmt.Sprintf("bash -c 'echo $$ > %s; exec sleep 600'", pidFile)}})
	}()
	var pid int
	for i := 0; i < 3000 && pid == 0; i++ {
		if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 || !alive(pid) {
		t.Fatalf("the command never started (pid %d)", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The SDK's transport reaps the process; a zombie counts as exited.
	for i := 0; i < 3000 && alive(cmd.Process.Pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(cmd.Process.Pid) {
		_ = cmd.Process.Kill()
		t.Fatal("shellport mcp did not exit on SIGTERM")
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("pid %d outlived shellport mcp", pid)
	}
}
