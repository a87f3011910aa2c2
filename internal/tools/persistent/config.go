package persistent

import (
	"time"

	"github.com/shellport/shellport/internal/tools"
)

// Config is the persistent bash tool's config ({"tools": {"bash": {…}}} in
// the persistent profile).
type Config struct {
	tools.Common
	// TimeoutMs is how long one command may run before it is stopped and
	// the shell reset.
	TimeoutMs int `json:"timeoutMs"`
	// MaxOutputChars bounds the output a result shows.
	MaxOutputChars int `json:"maxOutputChars"`
	// Shell is the bash to run: a name looked up on PATH, or a path.
	Shell string `json:"shell"`
	// SpawnHelper is the shellport-spawn-helper shells start through
	// (required on Linux, where it supervises each shell). The runtime
	// fills it from its carrier's lookup when the config names none.
	SpawnHelper string `json:"spawnHelper"`
}

var (
	_ tools.Config    = (*Config)(nil)
	_ tools.CallBound = (*Config)(nil)
)

// Limits of MaxOutputChars, beyond which a value is a mistake.
const (
	MinOutputChars = 100
	MaxOutputChars = 100_000_000
)

// DefaultConfig is the config with every default filled in.
func DefaultConfig() Config {
	return Config{TimeoutMs: DefaultTimeoutMs, MaxOutputChars: DefaultMaxOutputChars, Shell: "bash"}
}

// Check refuses values out of range.
func (c *Config) Check() error {
	for _, err := range []error{
		tools.CheckRange("timeoutMs", c.TimeoutMs, 1, tools.MaxTimeoutMs, "milliseconds"),
		tools.CheckRange("maxOutputChars", c.MaxOutputChars, MinOutputChars, MaxOutputChars, "characters"),
		tools.CheckString("shell", c.Shell, false),
		tools.CheckString("spawnHelper", c.SpawnHelper, true),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// LongestCall is the timeout plus the escalation that stops a timed-out
// command and the teardown of its shell.
func (c *Config) LongestCall() time.Duration {
	return time.Duration(c.TimeoutMs)*time.Millisecond + time.Duration(len(escalation()))*stopGrace + reapWait + drainWait
}

// withDefaults fills zero fields with their defaults, for Go callers that
// set only some.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.TimeoutMs <= 0 {
		c.TimeoutMs = d.TimeoutMs
	}
	if c.MaxOutputChars <= 0 {
		c.MaxOutputChars = d.MaxOutputChars
	}
	if c.Shell == "" {
		c.Shell = d.Shell
	}
	return c
}
