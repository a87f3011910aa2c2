package bash

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// Timings of stopping a process group. They are not config: they bound how
// long the tool itself waits, not how long a command may run.
const (
	// killGrace is how long a group has between SIGTERM and SIGKILL after a
	// timeout or a bash_kill.
	killGrace = time.Second
	// closeGrace is the same for CloseSession and Close, which must return
	// promptly.
	closeGrace = 250 * time.Millisecond
	// drainWait bounds the wait for end-of-file once the command's shell is
	// gone: a process that left the group (setsid) may hold the pipe open
	// for ever, and its later output is not worth a hung call.
	drainWait = 500 * time.Millisecond
)

// settings are the resolved config of one executor.
type settings struct {
	timeoutMs    int
	maxTimeoutMs int
	maxChars     int
	maxTasks     int
	maxLogBytes  int
	shell        string
	spawnHelper  string // shellport-spawn-helper; required on Linux
	spillDir     string
	names        tools.Host // for the names of the three tools in texts
}

func newSettings(host tools.Host, cfg Config) settings {
	cfg = cfg.withDefaults()
	s := settings{
		timeoutMs:    cfg.TimeoutMs,
		maxTimeoutMs: max(cfg.MaxTimeoutMs, cfg.TimeoutMs),
		maxChars:     cfg.MaxOutputChars,
		maxTasks:     cfg.MaxTasks,
		maxLogBytes:  cfg.MaxLogBytes,
		shell:        cfg.Shell,
		spawnHelper:  cfg.SpawnHelper,
		spillDir:     host.SpillDir,
		names:        host,
	}
	if s.spillDir == "" {
		s.spillDir = os.TempDir()
	}
	return s
}

// bashName, outputName and killName are the names the model sees.
func (s settings) bashName() string   { return s.names.Name(NameBash) }
func (s settings) outputName() string { return s.names.Name(NameOutput) }
func (s settings) killName() string   { return s.names.Name(NameKill) }

func (s settings) timeout() time.Duration { return time.Duration(s.timeoutMs) * time.Millisecond }

func bashDescription(s settings) string {
	return fmt.Sprintf(`Run a shell command with bash -c and return what it printed.

Every call starts a new bash process, so nothing carries over between calls: a cd, an export, a variable or a function from one call is gone in the next. Put dependent steps in one command (cd app && make test) or pass workdir, and prefer absolute paths.

- The command runs in the session's working directory, or in workdir (absolute, or relative to the session's directory).
- stdin is empty: a command that waits for input, a pager or an editor reads end-of-file. Use non-interactive flags (-y, --no-pager, --no-edit).
- After timeoutMs milliseconds (default %d, at most %d) the command and every process it started get SIGTERM, then SIGKILL. Processes it leaves running when it exits are stopped as well.
- The result is stdout, then a [stderr] section when anything was written to stderr, then status lines when they apply: [timed out after N seconds], [killed by signal: NAME], [exit code: N] (a non-zero exit is an ordinary result: read the output and decide), and [output truncated; full output: PATH] when the output passed %d characters (its start and end are kept around a note of how much was left out; the file holds all of it).
- For servers, watchers and other long jobs set run_in_background to true: the call returns a task id such as bash-1 at once and no timeout applies. Read new output with %s and stop the task with %s.
- description: say what the command does in 5-10 words, e.g. "Run the unit tests of the parser".`,
		s.timeoutMs, s.maxTimeoutMs, s.maxChars, s.outputName(), s.killName())
}

func outputDescription(s settings) string {
	return fmt.Sprintf(`Read what a background task printed since the last read, followed by its status: running, completed with its exit code, or killed.

Takes the task_id that %s returned for a command run with run_in_background. stdout and stderr are merged in the order they were written. Each piece of output is returned once. When more than %d characters arrived since the last read, or more than %d bytes piled up unread, the latest part is shown and the task's full log file is named.`,
		s.bashName(), s.maxChars, s.maxLogBytes)
}

func killDescription(s settings) string {
	return fmt.Sprintf(`Stop a background task and every process it started: SIGTERM first, then SIGKILL if it is still running %s later.

Takes the task_id that %s returned for a command run with run_in_background. Stopping a task that has already finished changes nothing and says so. Output printed before the stop can still be read with %s.`,
		killGrace, s.bashName(), s.outputName())
}

func bashSchema(s settings) json.RawMessage {
	return mustJSON(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{
				"type":        "string",
				"description": "The command to run with bash -c.",
			},
			"description": map[string]any{
				"type":        "string",
				"description": "What the command does, in 5-10 words.",
			},
			"timeoutMs": map[string]any{
				"type":        "number",
				"minimum":     1,
				"maximum":     s.maxTimeoutMs,
				"description": fmt.Sprintf("Stop the command after this many milliseconds (default %d, at most %d). Ignored with run_in_background.", s.timeoutMs, s.maxTimeoutMs),
			},
			"workdir": map[string]any{
				"type":        "string",
				"description": "Directory to run in: absolute, or relative to the session's working directory, which is the default.",
			},
			"run_in_background": map[string]any{
				"type":        "boolean",
				"description": "Start the command as a background task and return its task id at once instead of waiting for it.",
			},
		},
		"required":             []string{"command", "description"},
		"additionalProperties": false,
	})
}

func taskSchema() json.RawMessage {
	return mustJSON(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"task_id": map[string]any{
				"type":        "string",
				"description": "The id of a background task, such as bash-1.",
			},
		},
		"required":             []string{"task_id"},
		"additionalProperties": false,
	})
}

// mustJSON marshals a literal built above; it cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("bash: schema literal: " + err.Error())
	}
	return b
}
