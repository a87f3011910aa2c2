package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/shellport/shellport/internal/strictjson"
	"github.com/shellport/shellport/internal/tools"
)

// keyHints is what an unknown key in a tool's config is compared with, to
// say where it belongs.
type keyHints struct {
	tool string       // the tool whose object holds the key
	own  tools.Config // its config
	rows []row        // the profile's tools
}

// topLevelKeys are the keys of Config itself (TestTopLevelKeys keeps the
// list true).
var topLevelKeys = []string{"profile", "tools", "maxMessageBytes", "sandbox", "testTools"}

// configError words a decoding error of the config object at path ("" for
// the whole config, "tools.bash" for a tool's) in our terms: the key, and
// what was expected.
func configError(path string, err error, h *keyHints) string {
	var unknown *strictjson.UnknownKeyError
	var dup *strictjson.DuplicateKeyError
	var text *strictjson.TextError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &unknown):
		where := join(path, unknown.Path)
		msg := fmt.Sprintf("unknown key %q", unknown.Key)
		if where != "" {
			msg += " in " + where
		}
		switch {
		case unknown.Near != "":
			msg += fmt.Sprintf(" (keys are case-sensitive: did you mean %q?)", unknown.Near)
		case unknown.Path != "":
		case h == nil && path == "":
			if owners := settingOf(unknown.Key, nil); len(owners) > 0 {
				msg += fmt.Sprintf("; it is a tool setting: put it in %s", strings.Join(owners, " or "))
			}
		case h == nil: // the profile table's own defaults: a bug, not a user's mistake
		default:
			if owners := settingOf(unknown.Key, h.rows); len(owners) > 0 {
				msg += fmt.Sprintf("; it is a setting of %s", strings.Join(owners, " and "))
			} else if slices.Contains(topLevelKeys, unknown.Key) {
				msg += "; it belongs at the top level of the config"
			}
			msg += fmt.Sprintf(" (%s takes: %s)", path, strings.Join(tools.ConfigKeys(h.own), ", "))
		}
		return msg
	case errors.As(err, &dup):
		return fmt.Sprintf("key %q is given more than once in %s", dup.Key, orConfig(join(path, dup.Path)))
	case errors.As(err, &text):
		return fmt.Sprintf("%s: %v", orConfig(path), text)
	case errors.As(err, &typeErr):
		field := join(path, jsonPath(typeErr.Field))
		return fmt.Sprintf("%s must be %s, got %s", orConfig(field), expected(typeErr.Type), got(typeErr.Value))
	case errors.Is(err, strictjson.ErrTrailingData):
		return "trailing data after the config object"
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Sprintf("not valid JSON (at byte %d: %s)", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// settingOf lists, as "tools.NAME", the tools whose config accepts key:
// among rows, or among every profile's tools when rows is nil.
func settingOf(key string, rows []row) []string {
	if rows == nil {
		for _, p := range profiles {
			rows = append(rows, p.rows...)
		}
	}
	var owners []string
	for _, r := range rows {
		k, ok := catalog[r.kind]
		if !ok || isCommonKey(key) {
			continue
		}
		owner := "tools." + r.tool
		if slices.Contains(tools.ConfigKeys(k.config()), key) && !slices.Contains(owners, owner) {
			owners = append(owners, owner)
		}
	}
	return owners
}

// jsonPath drops the names of embedded config structs from the path
// encoding/json reports ("Common.name" is the key "name").
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p != "Common" && p != "CommonConfig" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

func isCommonKey(key string) bool { return key == "name" || key == "description" }

func join(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	}
	return path + "." + key
}

func orConfig(path string) string {
	if path == "" {
		return "the config"
	}
	return path
}

// expected says in words what a Go type takes in JSON.
func expected(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "another type"
}

// got says in words what a JSON value was, from encoding/json's
// description of it ("string", "number 1.5", "bool").
func got(value string) string {
	switch {
	case value == "string":
		return "a string"
	case value == "bool":
		return "true or false"
	case value == "array":
		return "an array"
	case value == "object":
		return "an object"
	case value == "number":
		return "a number"
	case strings.HasPrefix(value, "number "):
		return strings.TrimPrefix(value, "number ")
	}
	return strconv.Quote(value)
}
