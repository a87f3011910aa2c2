// Package bash is shellport's one-shot bash tool and its two companions for
// background tasks.
//
//   - bash runs a command with `bash -c` in a new session and process group,
//     stdin /dev/null, in the calling session's working directory (or the
//     workdir argument), and returns stdout, a [stderr] section and status
//     markers. Nothing persists between calls.
//   - bash with run_in_background starts a task (bash-1, bash-2, …) and returns
//     at once; bash_output reads what the task printed since the last read and
//     bash_kill stops its whole process group.
//
// The three tools share one executor, so every session's tasks live in one
// table. A task belongs to the session that started it, for the runtime's
// life: other sessions can neither read nor stop it. A task started without a
// session is open to anyone, and a call without a session cannot touch a task
// that has an owner.
//
// On Linux every command runs under its own supervisor
// (internal/spawnhelper), which owns every process the command starts,
// however it detached: a timeout sends SIGTERM to the command's process
// group and then has the supervisor SIGKILL everything; when a command's
// shell exits, whatever it left running is killed; closing a session kills
// that session's tasks (their ownership records stay); Close kills
// everything; and the runtime's death kills everything too. Elsewhere the
// process group is the unit of cleanup, and what leaves it survives.
//
// A command too long for one argument (128 KiB) reaches bash through a
// sealed in-memory file and a -c trampoline (script.go).
//
// A foreground call's output, status lines and facts are written by
// internal/tools/output, the core both bash tools share; its ParseStatus
// reads the status lines back.
package bash

import (
	"github.com/shellport/shellport/internal/tools"
)

// Canonical tool names. The runtime may expose the tools under other names.
const (
	NameBash   = "bash"
	NameOutput = "bash_output"
	NameKill   = "bash_kill"
)

// Defaults of the Config fields.
const (
	DefaultTimeoutMs      = 120_000 // Config.TimeoutMs
	DefaultMaxTimeoutMs   = 600_000 // Config.MaxTimeoutMs
	DefaultMaxOutputChars = 30_000  // Config.MaxOutputChars
	DefaultMaxTasks       = 16      // Config.MaxTasks: background tasks running at once
	DefaultMaxLogBytes    = 1 << 20 // Config.MaxLogBytes: unread output kept in memory per task
	DefaultShell          = "bash"  // Config.Shell
)

// Params are the arguments of the bash tool.
type Params struct {
	// Command is run with `bash -c`.
	Command string `json:"command"`
	// Description is a 5–10 word summary for logs and UIs; it does not
	// change what runs.
	Description string `json:"description"`
	// TimeoutMs overrides the default timeout, up to the configured maximum.
	// It is ignored for background tasks.
	TimeoutMs *float64 `json:"timeoutMs"`
	// Workdir is absolute, or relative to the session's working directory.
	Workdir string `json:"workdir"`
	// RunInBackground starts a task and returns its id at once.
	RunInBackground bool `json:"run_in_background"`
}

// TaskParams are the arguments of bash_output and bash_kill.
type TaskParams struct {
	TaskID string `json:"task_id"`
}

// New returns the bash, bash_output and bash_kill tools, in that order. They
// share one executor: tasks started through the first are read and stopped
// through the other two. cfg is the bash tool's configuration (zero fields
// take their defaults; SpawnHelper is required on Linux, where every
// command runs under its own supervisor). Texts that name one of the three
// tools use host.Name.
//
// Each tool implements [tools.SessionCloser] and [tools.Closer]; calling
// them on all three, or twice, is harmless.
func New(host tools.Host, cfg Config) []tools.Tool {
	e := newExecutor(host, cfg)
	return []tools.Tool{&bashTool{e}, &outputTool{e}, &killTool{e}}
}
