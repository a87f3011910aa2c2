package core

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/strictjson"
	"github.com/shellport/shellport/internal/tools"
)

// Profile names. A profile picks which bash is mounted; everything else a
// profile may change (tool names, descriptions, limits) is config data.
const (
	ProfileOneshot    = "oneshot"
	ProfilePersistent = "persistent"
)

// Config is the runtime configuration, as JSON:
//
//	{"profile": "persistent",
//	 "tools": {"bash": {"timeoutMs": 60000, "description": "…"},
//	           "str_replace_editor": {"name": "edit", "maxOutputChars": 20000}}}
//
// Keys of "tools" are canonical tool names. Unknown keys anywhere are errors,
// so a misspelt limit is reported instead of silently ignored.
type Config struct {
	// Profile is "oneshot" (the default) or "persistent".
	Profile string `json:"profile,omitempty"`
	// Tools configures tools by canonical name.
	Tools map[string]tools.Config `json:"tools,omitempty"`
	// MaxMessageBytes bounds one protocol message (default 8 MiB).
	MaxMessageBytes int `json:"maxMessageBytes,omitempty"`
	// Sandbox is every session's default sandbox (internal/sandbox); a
	// session's own is merged over it. Full access when not given.
	Sandbox sandbox.Config `json:"sandbox,omitempty"`
	// TestTools mounts the runtime's self-test tools (_echo, _sleep,
	// _panic, _notify). For tests of the carriers; never for models.
	TestTools bool `json:"testTools,omitempty"`
}

// ParseConfig decodes and checks a config. Empty input or "null" is the
// default config.
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return cfg, cfg.check()
	}
	if err := strictjson.Decode(trimmed, &cfg); err != nil {
		return cfg, fmt.Errorf("invalid config: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return cfg, cfg.check()
}

// LoadConfig reads a config from a JSON file.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return cfg, fmt.Errorf("config %q: %w", path, err)
	}
	return cfg, nil
}

func (c *Config) check() error {
	switch c.Profile {
	case "":
		c.Profile = ProfileOneshot
	case ProfileOneshot, ProfilePersistent:
	default:
		return fmt.Errorf("invalid config: unknown profile %q (want %q or %q)", c.Profile, ProfileOneshot, ProfilePersistent)
	}
	known := toolNames(c.Profile, c.TestTools)
	for name, tc := range c.Tools {
		if !contains(known, name) {
			return fmt.Errorf("invalid config: profile %q has no tool %q (its tools: %s)", c.Profile, name, strings.Join(known, ", "))
		}
		if tc.Name != "" && !validToolName(tc.Name) {
			return fmt.Errorf("invalid config: tools.%s.name %q must be 1-64 letters, digits, '_' or '-'", name, tc.Name)
		}
		for field, v := range map[string]int{"timeoutMs": tc.TimeoutMs, "maxTimeoutMs": tc.MaxTimeoutMs, "maxOutputChars": tc.MaxOutputChars, "maxTasks": tc.MaxTasks, "maxLogBytes": tc.MaxLogBytes} {
			if v < 0 {
				return fmt.Errorf("invalid config: tools.%s.%s must not be negative, got %d", name, field, v)
			}
		}
	}
	if err := c.Sandbox.Check("invalid config: sandbox", false); err != nil {
		return err
	}
	if c.MaxMessageBytes < 0 {
		return fmt.Errorf("invalid config: maxMessageBytes must not be negative, got %d", c.MaxMessageBytes)
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = rpc.DefaultMaxMessage
	}
	// Two tools may not end up with one name.
	seen := map[string]string{}
	for _, canonical := range known {
		exposed := canonical
		if tc := c.Tools[canonical]; tc.Name != "" {
			exposed = tc.Name
		}
		if other, dup := seen[exposed]; dup {
			return fmt.Errorf("invalid config: tools %q and %q would both be named %q", other, canonical, exposed)
		}
		seen[exposed] = canonical
	}
	return nil
}

func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
