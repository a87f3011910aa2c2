package tools

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Config is the configuration of one tool: a pointer to the tool's own
// config struct, which embeds [Common] and adds the tool's settings with
// JSON tags, for example
//
//	type Config struct {
//		tools.Common
//		TimeoutMs int `json:"timeoutMs"`
//	}
//
// The runtime decodes {"tools": {NAME: {...}}} into a fresh value holding
// the tool's defaults (and its profile's), exactly: a key no field names is
// an error that names the tool and the key. It then calls Check.
type Config interface {
	// Check refuses values out of range. Return a [*KeyError] (see
	// [CheckRange]) so the message names the key; the runtime adds the
	// tool's path ("tools.bash.").
	Check() error
	common() *Common
}

// Common is the part of every tool's config the runtime itself reads: the
// name the model sees and the model-facing description. Tools never read
// it; the runtime applies it when it mounts them.
type Common struct {
	// Name exposes the tool under another name (benchmark reproduction):
	// 1-64 of [A-Za-z0-9_-].
	Name string `json:"name,omitempty"`
	// Description replaces the model-facing description.
	Description string `json:"description,omitempty"`
}

func (c *Common) common() *Common { return c }

// CommonOf returns the common part of a tool's config.
func CommonOf(c Config) Common { return *c.common() }

// CommonConfig is the config of a tool that has no settings of its own.
type CommonConfig struct {
	Common
}

// Check accepts every value: name and description are checked by the
// runtime.
func (*CommonConfig) Check() error { return nil }

// CallBound is implemented by configs of tools whose calls are bounded in
// time. LongestCall is the longest one call can take under this config,
// including the grace the tool gives a command to stop. The executable
// waits that long, at most, for calls still running when its input ends.
type CallBound interface {
	LongestCall() time.Duration
}

// KeyError is a config value a tool refuses: Key is its key in the tool's
// config ("timeoutMs"), Problem says what is wrong in the tool's words
// ("must be between 1 and 86400000, got 0").
type KeyError struct {
	Key     string
	Problem string
}

func (e *KeyError) Error() string { return e.Key + " " + e.Problem }

// CheckRange returns a *KeyError unless lo <= v <= hi. unit, when not
// empty, names what v counts ("milliseconds").
func CheckRange(key string, v, lo, hi int, unit string) error {
	if v >= lo && v <= hi {
		return nil
	}
	if unit != "" {
		unit = " " + unit
	}
	return &KeyError{Key: key, Problem: fmt.Sprintf("must be between %d and %d%s, got %d", lo, hi, unit, v)}
}

// CheckString returns a *KeyError for a string setting (a path, a program
// name) that is empty, unless it may be, or holds a NUL character.
func CheckString(key, v string, mayBeEmpty bool) error {
	switch {
	case v == "" && !mayBeEmpty:
		return &KeyError{Key: key, Problem: "must not be empty"}
	case strings.ContainsRune(v, 0):
		return &KeyError{Key: key, Problem: "must not contain NUL characters"}
	}
	return nil
}

// MaxTimeoutMs is the longest timeout any tool accepts in its config: 24
// hours. A longer one is a mistake (a value in microseconds), not a plan.
const MaxTimeoutMs = 24 * 60 * 60 * 1000

// ConfigKeys lists the JSON keys a config type accepts, sorted, with
// "name" and "description" first.
func ConfigKeys(c Config) []string {
	t := reflect.TypeOf(c)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	addKeys(&keys, t)
	sort.Slice(keys, func(i, j int) bool {
		ci, cj := isCommonKey(keys[i]), isCommonKey(keys[j])
		if ci != cj {
			return ci
		}
		if ci {
			return keys[i] > keys[j] // name before description
		}
		return keys[i] < keys[j]
	})
	return keys
}

func isCommonKey(k string) bool { return k == "name" || k == "description" }

func addKeys(keys *[]string, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addKeys(keys, f.Type)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		*keys = append(*keys, name)
	}
}
