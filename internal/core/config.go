package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/sandbox"
	"github.com/shellport/shellport/internal/strictjson"
	"github.com/shellport/shellport/internal/tools"
)

// Config is the runtime configuration, as JSON:
//
//	{"profile": "persistent",
//	 "tools": {"bash": {"timeoutMs": 60000, "description": "…"},
//	           "str_replace_editor": {"name": "edit", "maxOutputChars": 20000}}}
//
// Keys of "tools" are canonical tool names of the profile; each tool's
// object is read into that tool's own config type (see profiles.go and
// catalog.go). Unknown keys anywhere are errors that name the tool and the
// key, so a misspelt or misplaced limit is reported instead of silently
// ignored.
type Config struct {
	// Profile is "oneshot" (the default) or "persistent".
	Profile string `json:"profile,omitempty"`
	// Tools configures tools by canonical name, as JSON objects.
	Tools map[string]json.RawMessage `json:"tools,omitempty"`
	// MaxMessageBytes bounds one protocol message (default 8 MiB).
	MaxMessageBytes int `json:"maxMessageBytes,omitempty"`
	// Sandbox is every session's default sandbox (internal/sandbox); a
	// session's own is merged over it. Full access when not given.
	Sandbox sandbox.Config `json:"sandbox,omitempty"`
	// TestTools mounts the runtime's self-test tools (_echo, _sleep,
	// _panic, _notify). For tests of the carriers; never for models.
	TestTools bool `json:"testTools,omitempty"`

	// mounted is what Check made of the above: the tools to mount, in
	// tools/list order, with their decoded configs.
	mounted []mountedConfig
}

// mountedConfig is one tool a checked config mounts.
type mountedConfig struct {
	row    row
	config tools.Config
	name   string // the name the model sees
}

// DecodeConfig reads a config without checking it against its profile
// (see Check), for callers that change it first. Empty input or "null" is
// the default config.
func DecodeConfig(data []byte) (Config, error) {
	var cfg Config
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return cfg, nil
	}
	if err := strictjson.Decode(trimmed, &cfg); err != nil {
		return cfg, fmt.Errorf("invalid config: %s", configError("", err, nil))
	}
	return cfg, nil
}

// ParseConfig decodes and checks a config. Empty input or "null" is the
// default config.
func ParseConfig(data []byte) (Config, error) {
	cfg, err := DecodeConfig(data)
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.Check()
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

// Check validates the config against its profile and fills in defaults:
// each tool's object is decoded into the tool's own config type over its
// defaults and checked by it. Errors start with "invalid config: ".
func (c *Config) Check() error {
	if err := c.check(); err != nil {
		return fmt.Errorf("invalid config: %w", err)
	}
	return nil
}

func (c *Config) check() error {
	c.mounted = nil
	if c.Profile == "" {
		c.Profile = profiles[0].name
	}
	p, ok := profileNamed(c.Profile)
	if !ok {
		return fmt.Errorf("unknown profile %q (profiles: %s)", c.Profile, strings.Join(profileNames(), ", "))
	}
	if err := c.Sandbox.Check("invalid config: sandbox", false); err != nil {
		return err
	}
	if c.MaxMessageBytes < 0 {
		return fmt.Errorf("maxMessageBytes must not be negative, got %d", c.MaxMessageBytes)
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = rpc.DefaultMaxMessage
	}
	rows := rowsOf(p, c.TestTools)
	for _, name := range sortedKeys(c.Tools) {
		if !hasRow(rows, name) {
			return fmt.Errorf("profile %q has no tool %q (its tools: %s)", c.Profile, name, describeRows(rows))
		}
	}
	var mounted []mountedConfig
	for _, r := range rows {
		raw, named := c.Tools[r.tool]
		if r.optIn && !named {
			continue
		}
		cfg, err := decodeToolConfig(r, raw, rows)
		if err != nil {
			return err
		}
		m := mountedConfig{row: r, config: cfg, name: r.tool}
		if n := tools.CommonOf(cfg).Name; n != "" {
			m.name = n
		}
		mounted = append(mounted, m)
	}
	// Two tools may not end up with one name.
	seen := map[string]string{}
	for _, m := range mounted {
		if other, dup := seen[m.name]; dup {
			return fmt.Errorf("tools %q and %q would both be named %q", other, m.row.tool, m.name)
		}
		seen[m.name] = m.row.tool
	}
	c.mounted = mounted
	return nil
}

// decodeToolConfig reads one tool's config object over the kind's and the
// profile's defaults, and checks it.
func decodeToolConfig(r row, raw json.RawMessage, rows []row) (tools.Config, error) {
	k, ok := catalog[r.kind]
	if !ok {
		return nil, fmt.Errorf("tool %q: no implementation %q", r.tool, r.kind) // a bug in the profile table
	}
	cfg := k.config()
	path := "tools." + r.tool
	if r.defaults != "" {
		if err := strictjson.Decode([]byte(r.defaults), cfg); err != nil {
			return nil, fmt.Errorf("the defaults of %s in the profile table: %s", path, configError(path, err, nil)) // a bug in the table
		}
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && string(trimmed) != "null" {
		if err := strictjson.Decode(trimmed, cfg); err != nil {
			return nil, fmt.Errorf("%s", configError(path, err, &keyHints{tool: r.tool, own: cfg, rows: rows}))
		}
	}
	if n := tools.CommonOf(cfg).Name; n != "" && !validToolName(n) {
		return nil, fmt.Errorf("%s.name %q must be 1-64 letters, digits, '_' or '-'", path, n)
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("%s.%w", path, err)
	}
	return cfg, nil
}

func hasRow(rows []row, tool string) bool {
	for _, r := range rows {
		if r.tool == tool {
			return true
		}
	}
	return false
}

// describeRows lists a profile's tools for an error message.
func describeRows(rows []row) string {
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.tool
		if r.optIn {
			names[i] += " (opt-in)"
		}
	}
	return strings.Join(names, ", ")
}

// CanonicalNames maps the name the model sees of every tool the config
// mounts to the tool's canonical name (the key in "tools"). It is empty
// for a config that does not check.
func (c Config) CanonicalNames() map[string]string {
	if c.mounted == nil && c.check() != nil {
		return map[string]string{}
	}
	m := make(map[string]string, len(c.mounted))
	for _, t := range c.mounted {
		m[t.name] = t.row.tool
	}
	return m
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
