//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestShellsDieWithTheExecutable kills `shellport serve` with SIGKILL — no
// chance to clean up — and checks that the shells it started die too
// (Linux parent-death signal), for both bash tools.
func TestShellsDieWithTheExecutable(t *testing.T) {
	exe := buildExecutable(t)
	for _, profile := range []string{"oneshot", "persistent"} {
		t.Run(profile, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			args := fmt.Sprintf(`{"command":"echo $$ > %s; exec sleep 1000","description":"sleep"}`, pidFile)
			if profile == "persistent" {
				args = fmt.Sprintf(`{"command":"echo $$ > %s; sleep 1000"}`, pidFile)
			}
			cmd := exec.Command(exe, "serve", "--config", fmt.Sprintf(`{"profile":%q}`, profile))
			cmd.Env = append(os.Environ(), envSpawnHelper+"=") // the helper beside the executable
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"id":"d"}}`+"\n", dir)
			fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"session":"d","name":"bash","arguments":%s}}`+"\n", args)
			pid := 0
			for i := 0; i < 500 && pid == 0; i++ {
				if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
					pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
				}
				time.Sleep(10 * time.Millisecond)
			}
			if pid == 0 || !alive(pid) {
				t.Fatalf("the shell never started (pid %d)", pid)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			for i := 0; i < 500 && alive(pid); i++ {
				time.Sleep(10 * time.Millisecond)
			}
			if alive(pid) {
				_ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
				t.Fatalf("pid %d outlived the SIGKILLed executable", pid)
			}
		})
	}
}
