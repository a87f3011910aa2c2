// Package persistent is the bash tool of the persistent profile: one bash
// per session on a real terminal, whose state (working directory,
// variables, functions, aliases, activated virtualenvs, background jobs)
// survives from call to call, and which no command can confuse, wedge or
// leak.
//
// # Delivering a command
//
// A command never passes through the terminal's line discipline as typed
// input. Each shell gets a private directory (mode 0700) with an inbox file
// and two FIFOs, and runs a one-line driver loop (bootScript) given with
// bash -c; once the shell has opened them, their names and the directory
// are removed, so no command can reach them by path. For each call the tool appends the
// command verbatim, NUL-terminated, to the inbox and writes one byte to the
// control FIFO; the loop reads the command into a variable and evals it at
// top level. So here-documents, a trailing &, a trailing # comment,
// unbalanced quotes, !, tabs and very long lines behave exactly as in a
// script, and a syntax error comes straight back with bash's message. The
// terminal stays the command's stdin, stdout and stderr; nothing is ever
// typed into it. When the inbox's file system is full, the command goes
// through the control FIFO instead. The inbox never keeps more than 4 KiB
// of commands the shell has read: between calls the tool releases them.
//
// The shell runs without job control (as a script does): background jobs
// persist and `jobs`, `wait` and `kill %1` work, but bash prints no "[1]+
// Done" notices, and no prompt, history expansion, readline or bracketed
// paste exists to get in the way.
//
// # Ending a command
//
// One trip per call. When the command returns, the loop draws a fresh
// 128-bit token ($SRANDOM and a counter), writes it with the command's
// status as one record ("t<token> <status>") to a return FIFO, and prints
// a frame carrying the token to the terminal. The tool accepts a frame only when the return FIFO already holds
// its token. The token does not exist before the command has finished, and
// no output of the command or of its background jobs reaches the return
// FIFO, so nothing printed, replayed or dumped can end a call early or set
// its status; since the frame follows everything the command printed, the
// output is complete when it arrives. Output without a final newline is
// returned intact.
//
// The loop takes the status before running any command of its own, runs
// its bookkeeping as a loop condition (so set -e and ERR traps never fire
// in it), removes the command's DEBUG trap after two of its own commands (and
// puts it back inside the next eval, with xtrace), and unsets its own
// variables each turn, so the attributes, functions, aliases, traps and
// options a command leaves cannot change what it reports, and no trap or
// trace shows its lines. A command that leaves the shell unable to run the
// loop (set -n, a disabled builtin the loop needs, a function named
// builtin, a read-only __sp_ variable, its descriptors 10 to 14 closed, a
// ulimit -n so low that bash cannot save a descriptor, break outside any
// loop) ends the loop at once:
// the shell exits and the result says so in plain words, with the
// command's own status when it had one.
//
// What no design inside a single bash process can exclude is a command
// written to impersonate the loop: one that writes a crafted report into
// the shell's return FIFO (through /proc/PID/fd, which any process of the
// same user can open) and prints the matching frame. Such a command has
// exactly the loop's powers; docs/TOOLS.md says so.
//
// # Output
//
// A reader goroutine drains the terminal continuously, so a command is
// never blocked on output. The stream is cleaned as it arrives (escape
// sequences removed, carriage returns and backspaces applied so a progress
// bar leaves its final state, invalid UTF-8 replaced and counted) and
// handed to the output core both bash tools share (internal/tools/output):
// it keeps the text whole up to maxOutputChars characters, past that the
// first 40% and the last 60%, streams the full text to a spill file in
// the host's spill directory, and writes the result in the one dialect
// (docs/TOOLS.md). Output printed by background jobs between calls is
// shown with the next call. The shell's environment never pages, colours
// or prompts (TERM=dumb, NO_COLOR=1, PAGER=cat, GIT_PAGER=cat,
// GIT_TERMINAL_PROMPT=0, …), and the terminal neither echoes nor turns \n
// into \r\n.
//
// # Timeouts, cancellation, death
//
// A command still running at the timeout gets SIGINT, then SIGTERM, then
// SIGKILL (to the terminal's foreground group, half a second apart unless
// it ends sooner); then the shell's whole session is killed and the
// partial output returned with a notice that the shell was reset. When the
// command was blocked reading the terminal, the notice says so. A cancelled
// call (ctx done) resets the shell at once, even if the command had
// finished, and returns ctx's error: no state change the model never saw
// survives, and the next result opens with a notice that the shell was
// reset. If the shell itself exits (exit, set -e, kill -9 $$) the result
// says how, and the next call starts a fresh shell in the session's
// directory. Every reset is told in plain words in the text of the result
// it happens in (or, for a cancelled call, the next one) and in its
// shellReset field. Closing a session or the tool kills every process of the
// shell's session, background jobs included.
package persistent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/strictjson"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/output"
)

// Defaults of the config fields the tool reads.
const (
	DefaultTimeoutMs      = 120000
	DefaultMaxOutputChars = 30000
)

// Tool is the persistent bash tool.
type Tool struct {
	host     tools.Host
	timeout  time.Duration
	shellCfg shellConfig

	mu       sync.Mutex
	sessions map[string]*session // by tools.Session.Key
	closed   bool
}

var (
	_ tools.Tool          = (*Tool)(nil)
	_ tools.SessionCloser = (*Tool)(nil)
	_ tools.Closer        = (*Tool)(nil)
	_ tools.Runner        = (*Tool)(nil)
)

// New returns the tool. Zero fields of cfg take their defaults;
// SpawnHelper is required on Linux, where every shell runs under its own
// supervisor. No shell starts until a session's first call.
func New(host tools.Host, cfg Config) tools.Tool {
	cfg = cfg.withDefaults()
	spillDir := host.SpillDir
	if spillDir == "" {
		spillDir = os.TempDir()
	}
	var spares *spawnhelper.Spares
	if cfg.SpawnHelper != "" && spawnhelper.SparesInUse() {
		spares = spawnhelper.NewSpares(cfg.SpawnHelper)
	}
	return &Tool{
		host:    host,
		timeout: time.Duration(cfg.TimeoutMs) * time.Millisecond,
		shellCfg: shellConfig{
			shell:       cfg.Shell,
			spawnHelper: cfg.SpawnHelper,
			turnLib:     turnLibBeside(cfg.SpawnHelper),
			maxChars:    cfg.MaxOutputChars,
			spillDir:    spillDir,
			wakers:      &wakerPool{},
			spares:      spares,
		},
		sessions: make(map[string]*session),
	}
}

// Name is "bash".
func (t *Tool) Name() string { return "bash" }

// Description states what persists, what a timeout does and how a result
// reads.
func (t *Tool) Description() string { return defaultDescription(t.timeout, t.shellCfg.maxChars) }

// InputSchema is {command: string}.
func (t *Tool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"The bash command to run, as it would be written in a script; it may span several lines."}},"required":["command"],"additionalProperties":false}`)
}

// Call runs the command in the session's shell, starting the shell first
// when the session has none.
func (t *Tool) Call(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	command, problem := commandOf(call)
	if problem != nil {
		return problem, nil
	}
	s, err := t.session(call.Session.Key)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, t, call, command)
}

// commandOf is the command call asks for, or the error result that says
// why there is none to run (Call's answer; StartCall leaves such a call to
// Call).
func commandOf(call *tools.Call) (command string, problem *tools.Result) {
	command, ok := plainCommand(call.Arguments)
	if !ok {
		var args struct {
			Command *string `json:"command"`
		}
		if err := tools.Decode(call.Arguments, &args); err != nil {
			return "", tools.Errorf("%v", err)
		}
		if args.Command == nil {
			return "", tools.Errorf(`invalid arguments: "command" is required`)
		}
		command = *args.Command
	}
	switch {
	case strings.TrimSpace(command) == "":
		return "", tools.Errorf(`invalid arguments: "command" is empty`)
	case strings.ContainsRune(command, 0):
		return "", tools.Errorf(`invalid arguments: "command" contains a NUL byte`)
	case call.Session.Key == "":
		return "", tools.Errorf("this tool keeps one shell per session, so it runs only in a session; the call named none")
	}
	return command, nil
}

// plainCommand reads arguments of the shape clients send,
// {"command": "<text without escapes>"}, in one pass and without
// reflection (issue 16); ok is false for anything else, which
// tools.Decode then decodes, or words what is wrong with. What it reads,
// tools.Decode reads the same.
func plainCommand(args json.RawMessage) (command string, ok bool) {
	var value []byte
	members := 0
	if !strictjson.Members(args, func(key, v []byte) bool {
		members++
		value = v
		return members == 1 && string(key) == "command"
	}) || members != 1 {
		return "", false
	}
	return strictjson.PlainString(value)
}

// CloseSession kills the shell of the session with sessionKey and
// everything it started, and returns once they are gone (bounded by the
// shell's teardown waits).
func (t *Tool) CloseSession(sessionKey string) {
	t.mu.Lock()
	s := t.sessions[sessionKey]
	delete(t.sessions, sessionKey)
	t.mu.Unlock()
	if s != nil {
		s.close()
	}
}

// Running reports a live shell of the session with sessionKey (a shell
// that has exited, by exit or a reset, is none).
func (t *Tool) Running(sessionKey string) string {
	t.mu.Lock()
	s := t.sessions[sessionKey]
	t.mu.Unlock()
	if s == nil {
		return ""
	}
	s.mu.Lock()
	sh := s.sh
	s.mu.Unlock()
	if sh == nil || sh.dead() {
		return ""
	}
	return "a persistent shell open"
}

// Close kills every shell and everything they started. Later calls fail
// with ErrClosed.
func (t *Tool) Close() error {
	t.mu.Lock()
	t.closed = true
	all := t.sessions
	t.sessions = map[string]*session{}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() { defer wg.Done(); s.close() }()
	}
	wg.Wait()
	t.shellCfg.wakers.close()
	t.shellCfg.spares.Close() // a start still under way takes no spare after this
	return nil
}

// session returns the state of the session with key, made on first use.
// Keys are never reused, so a new session with a closed one's ID never
// finds the old shell.
func (t *Tool) session(key string) (*session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, ErrClosed
	}
	s := t.sessions[key]
	if s == nil {
		s = &session{key: key}
		t.sessions[key] = s
	}
	return s, nil
}

// defaultDescription states what persists, what a timeout does and how a
// result reads.
func defaultDescription(timeout time.Duration, maxChars int) string {
	return fmt.Sprintf(`Run a bash command in a shell that stays alive for the whole session, and return what it printed (stdout and stderr together, as a terminal shows them) and its exit status.

State carries over from one call to the next: the working directory, shell and environment variables, functions, aliases, an activated virtualenv and background jobs are all still there. Calls run one at a time, in the order they were made.

A command still running after %s is interrupted and the shell is replaced by a fresh one in the session's starting directory, so the working directory, variables, functions and background jobs are lost; the output so far is returned. The same reset happens when the shell itself exits (after exit, or set -e followed by a failing command). Nothing can be typed into a running command, so one that waits for input runs until that timeout.

The result is the output, then status lines when they apply: [timed out after N seconds], [exit code: N] (a non-zero exit is an ordinary result: read the output and decide), a line saying the shell was reset and why, and [output truncated; full output: PATH] when the output passed %d characters (its start and end are kept around a note of how much was left out; the file holds all of it).`, output.Duration(timeout), maxChars)
}
