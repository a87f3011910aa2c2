package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/shellport/shellport/internal/strictjson"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Decode unmarshals a call's arguments into dst. It is the one door between
// a model's arguments and a tool's Go values, and it is exact where
// encoding/json is lenient (see internal/strictjson): an argument name must
// match the schema byte for byte, may be given only once, and no string may
// hold invalid UTF-8 or a lone UTF-16 surrogate escape. Each of those, and
// an unknown argument, is an error that reads well as a model-facing
// message and names the argument.
func Decode(args json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	if err := strictjson.Decode(args, dst); err != nil {
		return argError(err)
	}
	return nil
}

func argError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var unknown *strictjson.UnknownKeyError
	var dup *strictjson.DuplicateKeyError
	var text *strictjson.TextError
	switch {
	case errors.As(err, &unknown):
		msg := fmt.Sprintf("invalid arguments: unknown argument %q", join(unknown.Path, unknown.Key))
		if unknown.Near != "" {
			msg += fmt.Sprintf(" (argument names are case-sensitive; did you mean %q?)", join(unknown.Path, unknown.Near))
		}
		return errors.New(msg)
	case errors.As(err, &dup):
		return fmt.Errorf("invalid arguments: argument %q is given more than once; give each argument once", join(dup.Path, dup.Key))
	case errors.As(err, &text):
		what := "argument " + strconv.Quote(text.Path)
		if text.Key {
			what = "an argument name"
		}
		if text.Surrogate != "" {
			return fmt.Errorf("invalid arguments: %s holds the escape %s, half of a UTF-16 surrogate pair without its other half, which is not a character; nothing was run", what, text.Surrogate)
		}
		return fmt.Errorf("invalid arguments: %s is not valid UTF-8 (bad byte at offset %d of the arguments); nothing was run", what, text.Offset)
	case errors.Is(err, strictjson.ErrTrailingData):
		return fmt.Errorf("invalid arguments: trailing data after the arguments object")
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return fmt.Errorf("invalid arguments: expected an object, got %s", typeErr.Value)
		}
		return fmt.Errorf("invalid arguments: %q must be %s, got %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("invalid arguments: malformed JSON at byte %d", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("invalid arguments: malformed JSON: the arguments end too early")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("invalid arguments: unknown argument %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return fmt.Errorf("invalid arguments: %w", err)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "float64", "uint", "uint64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "of type " + goKind
}

func mergeEnv(base []string, extra map[string]string) []string {
	if len(extra) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, overridden := extra[name]; !overridden {
			out = append(out, kv)
		}
	}
	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out = append(out, name+"="+extra[name])
	}
	return out
}
