package bash

import (
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// Config is the one-shot bash tool's config ({"tools": {"bash": {…}}} in
// the oneshot profile). bash_output and bash_kill have no settings of their
// own ([tools.CommonConfig]): they share this tool's executor, limits
// included.
type Config struct {
	tools.Common
	// TimeoutMs is a call's timeout when it asks for none.
	TimeoutMs int `json:"timeoutMs"`
	// MaxTimeoutMs caps the timeout a call may ask for.
	MaxTimeoutMs int `json:"maxTimeoutMs"`
	// MaxOutputChars bounds the output a result shows (and what
	// bash_output shows of a task per read).
	MaxOutputChars int `json:"maxOutputChars"`
	// MaxTasks bounds the background tasks running at once.
	MaxTasks int `json:"maxTasks"`
	// MaxLogBytes bounds the unread output of one task kept in memory.
	MaxLogBytes int `json:"maxLogBytes"`
	// Shell is the bash to run: a name looked up on PATH, or a path.
	Shell string `json:"shell"`
	// SpawnHelper is the shellport-spawn-helper every command starts
	// through (required on Linux, where it supervises each command). The
	// runtime fills it from its carrier's lookup when the config names
	// none.
	SpawnHelper string `json:"spawnHelper"`
}

var (
	_ tools.Config    = (*Config)(nil)
	_ tools.CallBound = (*Config)(nil)
)

// Limits of the settings, beyond which a value is a mistake.
const (
	MinOutputChars = 100         // below it the notes of a cut crowd out the output
	MaxOutputChars = 100_000_000 // each stream may hold four bytes a character in memory
	MaxTasksLimit  = 1024
	MinLogBytes    = 1024
	MaxLogBytes    = 1 << 30
)

// DefaultConfig is the config with every default filled in.
func DefaultConfig() Config {
	return Config{
		TimeoutMs:      DefaultTimeoutMs,
		MaxTimeoutMs:   DefaultMaxTimeoutMs,
		MaxOutputChars: DefaultMaxOutputChars,
		MaxTasks:       DefaultMaxTasks,
		MaxLogBytes:    DefaultMaxLogBytes,
		Shell:          DefaultShell,
	}
}

// Check refuses values out of range, and a default timeout above the
// maximum a call may ask for.
func (c *Config) Check() error {
	for _, err := range []error{
		tools.CheckRange("timeoutMs", c.TimeoutMs, 1, tools.MaxTimeoutMs, "milliseconds"),
		tools.CheckRange("maxTimeoutMs", c.MaxTimeoutMs, 1, tools.MaxTimeoutMs, "milliseconds"),
		tools.CheckRange("maxOutputChars", c.MaxOutputChars, MinOutputChars, MaxOutputChars, "characters"),
		tools.CheckRange("maxTasks", c.MaxTasks, 1, MaxTasksLimit, ""),
		tools.CheckRange("maxLogBytes", c.MaxLogBytes, MinLogBytes, MaxLogBytes, "bytes"),
		tools.CheckString("shell", c.Shell, false),
		tools.CheckString("spawnHelper", c.SpawnHelper, true),
	} {
		if err != nil {
			return err
		}
	}
	if c.TimeoutMs > c.MaxTimeoutMs {
		return &tools.KeyError{Key: "timeoutMs", Problem: "is above maxTimeoutMs, so a call that asks for no timeout would be refused; raise maxTimeoutMs too"}
	}
	return nil
}

// LongestCall is the longest timeout a call may ask for, plus the time the
// tool gives a timed-out command to stop and its output to drain.
func (c *Config) LongestCall() time.Duration {
	return time.Duration(max(c.MaxTimeoutMs, c.TimeoutMs))*time.Millisecond + killGrace + drainWait
}

// withDefaults fills zero fields with their defaults, for Go callers that
// set only some (the runtime passes a checked config, filled already).
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.TimeoutMs <= 0 {
		c.TimeoutMs = d.TimeoutMs
	}
	if c.MaxTimeoutMs <= 0 {
		c.MaxTimeoutMs = max(d.MaxTimeoutMs, c.TimeoutMs)
	}
	if c.MaxOutputChars <= 0 {
		c.MaxOutputChars = d.MaxOutputChars
	}
	if c.MaxTasks <= 0 {
		c.MaxTasks = d.MaxTasks
	}
	if c.MaxLogBytes <= 0 {
		c.MaxLogBytes = d.MaxLogBytes
	}
	if c.Shell == "" {
		c.Shell = d.Shell
	}
	return c
}
