package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// renames gives every tool a name that shares nothing with its canonical
// one.
var renames = map[string]string{
	"bash":               "run_cmd",
	"bash_output":        "read_task",
	"bash_kill":          "stop_task",
	"str_replace_editor": "edit_file",
	"apply_patch":        "patch_files",
}

// oldName finds a canonical tool name used as a word. "bash" is also the
// program's name: where a text means the program (bash -c, a bash process,
// bash's own messages), it is cut out before the scan by programBash.
var (
	oldName     = regexp.MustCompile(`(^|[^A-Za-z0-9_-])(bash_output|bash_kill|str_replace_editor|apply_patch|bash)([^A-Za-z0-9_-]|$)`)
	programBash = regexp.MustCompile(`bash -c|a new bash process|(a|[Tt]he) bash command|bash: |/bin/bash`)
)

// Issue 11: a renamed tool is never called by its old name. Every tool of
// both profiles is renamed, and every text the tools give — descriptions
// and schemas, results and errors, notices, the editor's hints — is read
// for the old names.
func TestRenamedToolsEverywhere(t *testing.T) {
	for _, profile := range []string{ProfileOneshot, ProfilePersistent} {
		t.Run(profile, func(t *testing.T) {
			tools := map[string]any{}
			for canonical, name := range renames {
				if profile == ProfilePersistent && (canonical == "bash_output" || canonical == "bash_kill") {
					continue
				}
				cfg := map[string]any{"name": name}
				if canonical == "bash" && profile == ProfileOneshot {
					cfg["maxTasks"] = 1
				}
				if canonical == "str_replace_editor" {
					cfg["maxOutputChars"] = 1000
				}
				tools[canonical] = cfg
			}
			config, _ := json.Marshal(map[string]any{"profile": profile, "tools": tools})
			dir := t.TempDir()
			rt, col := startRuntime(t, string(config), dir)
			texts := renamedTexts(t, rt, col, profile, dir)
			for what, text := range texts {
				scan := programBash.ReplaceAllString(text, "")
				if m := oldName.FindStringSubmatchIndex(scan); m != nil {
					from, to := max(m[4]-60, 0), min(m[5]+60, len(scan))
					t.Errorf("%s names %q: …%s…", what, scan[m[4]:m[5]], scan[from:to])
				}
			}
			// The texts that name other tools name them as configured.
			want := map[string]string{
				"an unknown tool":                     "(tools: run_cmd, ",
				"create over a file":                  "remove it with run_cmd first",
				"a directory with hidden entries":     "run ls -a with run_cmd",
				"a binary file":                       "use run_cmd (file, xxd, strings)",
				"an edit of a file that is not UTF-8": "Use run_cmd to edit files",
				"a line too long to show":             "Read the rest with run_cmd",
				"an editor argument error":            `"title":"edit_file"`,
			}
			if profile == ProfileOneshot {
				want["tools/list"] = "Read new output with read_task and stop the task with stop_task"
				want["a background launch"] = "Read its new output with read_task and stop it with stop_task."
				want["too many tasks"] = "stop one with stop_task"
				want["a task stopped"] = "can still be read with read_task"
			}
			for what, w := range want {
				if !strings.Contains(texts[what], w) {
					t.Errorf("%s does not say %q: %s", what, w, texts[what])
				}
			}
		})
	}
}

// renamedTexts makes the tools say everything that names a tool and
// returns the texts by what produced them.
func renamedTexts(t *testing.T, rt *Runtime, col *collector, profile, dir string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	n := 0
	call := func(what, name string, args any) map[string]any {
		t.Helper()
		n++
		raw, _ := json.Marshal(args)
		id := fmt.Sprintf(`"r%d"`, n)
		rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"session":"s","name":%q,"arguments":%s}}`, id, name, raw)))
		reply := col.wait(t, id)
		texts[what] = reply
		var r struct {
			Result map[string]any
		}
		_ = json.Unmarshal([]byte(reply), &r)
		return r.Result
	}
	for _, format := range []string{"mcp", "openai", "anthropic"} {
		rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"list-%s","method":"tools/list","params":{"format":%q}}`, format, format)))
		texts["tools/list "+format] = col.wait(t, `"list-`+format+`"`)
	}
	texts["tools/list"] = texts["tools/list mcp"]
	call("an unknown tool", "nope", map[string]any{"command": "true"})

	// The editor's hints that suggest the shell.
	_ = os.WriteFile(filepath.Join(dir, "exists.txt"), []byte("x\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "binary.bin"), []byte("a\x00b"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "latin1.txt"), []byte("caf\xe9\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "long.txt"), []byte(strings.Repeat("y", 5000)+"\n"), 0o644)
	call("create over a file", "edit_file", map[string]any{"command": "create", "path": filepath.Join(dir, "exists.txt"), "file_text": "y"})
	call("a directory with hidden entries", "edit_file", map[string]any{"command": "view", "path": dir})
	call("a binary file", "edit_file", map[string]any{"command": "view", "path": filepath.Join(dir, "binary.bin")})
	call("an edit of a file that is not UTF-8", "edit_file", map[string]any{"command": "str_replace", "path": filepath.Join(dir, "latin1.txt"), "old_str": "caf", "new_str": "tea"})
	call("a line too long to show", "edit_file", map[string]any{"command": "view", "path": filepath.Join(dir, "long.txt")})
	call("an edit with no match", "edit_file", map[string]any{"command": "str_replace", "path": filepath.Join(dir, "exists.txt"), "old_str": "\tx", "new_str": "z"})
	call("an editor argument error", "edit_file", map[string]any{"command": "frobnicate", "path": dir})
	call("a patch that does not fit", "patch_files", map[string]any{"patch": "*** Begin Patch\n*** Update File: exists.txt\n@@\n-nope\n+yes\n*** End Patch"})
	call("a patch", "patch_files", map[string]any{"patch": "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** End Patch"})
	call("a bash argument error", "run_cmd", map[string]any{"Command": "true"})

	if profile == ProfilePersistent {
		call("a shell that exits", "run_cmd", map[string]any{"command": "exit 3"})
		call("a command", "run_cmd", map[string]any{"command": "echo hi"})
		return texts
	}
	desc := "Run a command for the rename test"
	mark := filepath.Join(dir, "task-printed")
	started := call("a background launch", "run_cmd", map[string]any{"command": "echo started; touch " + mark + "; sleep 30", "description": desc, "run_in_background": true})
	sc, _ := started["structuredContent"].(map[string]any)
	task, _ := sc["taskId"].(string)
	call("too many tasks", "run_cmd", map[string]any{"command": "true", "description": desc, "run_in_background": true})
	waitFile(t, mark) // the output is in the pipe; stopping drains it unread
	call("a task stopped", "stop_task", map[string]any{"task_id": task})
	call("a task's output", "read_task", map[string]any{"task_id": task})
	call("a task stopped twice", "stop_task", map[string]any{"task_id": task})
	call("an unknown task", "read_task", map[string]any{"task_id": "bash-99"})
	call("a foreground command", "run_cmd", map[string]any{"command": "echo out; echo err >&2; exit 2", "description": desc})
	call("a timeout", "run_cmd", map[string]any{"command": "sleep 30", "description": desc, "timeoutMs": 100})
	// A task that ends by itself sends a notice.
	finished := call("a task that finishes", "run_cmd", map[string]any{"command": "echo done", "description": desc, "run_in_background": true})
	_ = finished
	deadline := time.Now().Add(20 * time.Second)
	for {
		col.mu.Lock()
		var notices []string
		for _, m := range col.all {
			if strings.Contains(m, `"session/notice"`) {
				notices = append(notices, m)
			}
		}
		col.mu.Unlock()
		if len(notices) > 0 {
			texts["notices"] = strings.Join(notices, "\n")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no notice of the finished task")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return texts
}

// waitFile waits for a command to create path.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
	}
}
