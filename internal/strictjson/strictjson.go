// Package strictjson decodes JSON objects into Go structs exactly: object
// keys must match a field's JSON name byte for byte, a key may appear only
// once per object, and every string (keys included) must be valid Unicode.
//
// encoding/json is lenient on all three: it matches keys without regard to
// case, lets the last of two equal keys win, and silently turns invalid UTF-8
// and lone UTF-16 surrogate escapes into U+FFFD. For a tool runtime that is a
// smuggling channel — {"command": "echo ok", "Command": "rm -rf x"} runs the
// second command while a harness that checked arguments["command"] saw the
// first — so every door where clients' JSON meets Go structs goes through
// [Decode] instead.
package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// UnknownKeyError is an object key that names no field of the target.
type UnknownKeyError struct {
	Path string // where the object is ("" for the top level, "opts", "list[2]")
	Key  string
	// Near is the field the key would have matched case-insensitively, or
	// "" when there is none.
	Near string
}

func (e *UnknownKeyError) Error() string {
	msg := "unknown field " + strconv.Quote(e.Key) + in(e.Path)
	if e.Near != "" {
		msg += fmt.Sprintf(" (names are case-sensitive: did you mean %q?)", e.Near)
	}
	return msg
}

// DuplicateKeyError is a key given twice in one object.
type DuplicateKeyError struct {
	Path string
	Key  string
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("field %q is given more than once%s", e.Key, in(e.Path))
}

func in(path string) string {
	if path == "" {
		return ""
	}
	return " in " + strconv.Quote(path)
}

// TextError is a string that is not valid Unicode: raw bytes that are not
// UTF-8, or a \u escape of a lone UTF-16 surrogate.
type TextError struct {
	Path string // the value's path; for a bad key, the object's path
	Key  bool   // the bad string is an object key, not a value
	// Offset is the byte offset of the bad sequence in the whole input.
	Offset int
	// Surrogate holds the escape (`\ud800`) when the problem is a lone
	// surrogate; empty for invalid UTF-8.
	Surrogate string
}

func (e *TextError) Error() string {
	what := "the value of " + strconv.Quote(e.Path)
	switch {
	case e.Key && e.Path == "":
		what = "a field name"
	case e.Key:
		what = "a field name in " + strconv.Quote(e.Path)
	case e.Path == "":
		what = "the value"
	}
	if e.Surrogate != "" {
		return fmt.Sprintf("%s holds %s, a lone UTF-16 surrogate, which is not a character", what, e.Surrogate)
	}
	return fmt.Sprintf("%s is not valid UTF-8 (at byte %d)", what, e.Offset)
}

// Decode unmarshals data into dst, a non-nil pointer, after checking it with
// [Check] against dst's type. Unknown fields are refused. Syntax and type
// errors are encoding/json's (*json.SyntaxError, *json.UnmarshalTypeError,
// io.ErrUnexpectedEOF), so callers can word them; a second value after the
// first is reported as ErrTrailingData. A plain object (see [DecodeFast])
// is read in one pass.
func Decode(data []byte, dst any) error {
	if DecodeFast(data, dst) {
		return nil
	}
	return decodeSlow(data, dst)
}

// decodeSlow is Decode without its fast path: each check in a pass of its
// own, and every error worded.
func decodeSlow(data []byte, dst any) error {
	valid := json.Valid(data) // once: the last check below reuses it
	if valid {
		if err := Check(data, reflect.TypeOf(dst)); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if dec.More() {
		return ErrTrailingData
	}
	if !valid { // a first value followed by a stray closing bracket, which More does not see
		return ErrTrailingData
	}
	return nil
}

// ErrTrailingData is more input after the first JSON value.
var ErrTrailingData = fmt.Errorf("trailing data after the JSON value")

// Check walks one JSON value and reports the first
// duplicate key, string that is not valid Unicode, or — where t (which may
// be nil, meaning "anything") is a struct — key that names no field exactly.
// A json.RawMessage is left as it is, to be checked by whoever decodes it
// (the arguments of tools/call are the tool's to judge, in its words).
// data should be valid JSON (json.Valid); on other input Check still
// returns, but what it reports is unspecified.
func Check(data []byte, t reflect.Type) error {
	w := walker{data: data}
	return w.value(t, "")
}

type walker struct {
	data  []byte
	i     int
	quiet bool // inside a json.RawMessage: walk, but leave the checks to whoever decodes it
}

func (w *walker) ws() {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// value checks the value at w.i against t and leaves w.i after it.
func (w *walker) value(t reflect.Type, path string) error {
	w.ws()
	if t == rawMessage && !w.quiet {
		w.quiet = true
		defer func() { w.quiet = false }()
	}
	t = target(t)
	if w.i >= len(w.data) {
		return nil
	}
	switch w.data[w.i] {
	case '{':
		return w.object(t, path)
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		w.i++
		for n := 0; ; n++ {
			w.ws()
			if w.i >= len(w.data) || w.data[w.i] == ']' {
				w.i++
				return nil
			}
			if err := w.value(elem, fmt.Sprintf("%s[%d]", path, n)); err != nil {
				return err
			}
			w.ws()
			if w.i < len(w.data) && w.data[w.i] == ',' {
				w.i++
			}
		}
	case '"':
		_, err := w.str(path, false)
		return err
	}
	// A number, true, false or null: skip to the next delimiter, and past
	// at least one byte, so input that is not JSON cannot stall the walk.
	start := w.i
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			if w.i == start {
				w.i++
			}
			return nil
		}
		w.i++
	}
	return nil
}

func (w *walker) object(t reflect.Type, path string) error {
	var fields map[string]reflect.Type
	if t != nil && t.Kind() == reflect.Struct {
		fields = fieldsOf(t)
	}
	var elem reflect.Type
	if t != nil && t.Kind() == reflect.Map {
		elem = t.Elem()
	}
	seen := map[string]bool{}
	w.i++ // '{'
	for {
		w.ws()
		if w.i >= len(w.data) || w.data[w.i] == '}' {
			w.i++
			return nil
		}
		key, err := w.str(path, true)
		if err != nil {
			return err
		}
		if seen[key] && !w.quiet {
			return &DuplicateKeyError{Path: path, Key: key}
		}
		seen[key] = true
		vt := elem
		if fields != nil {
			ft, ok := fields[key]
			if !ok {
				return &UnknownKeyError{Path: path, Key: key, Near: near(fields, key)}
			}
			vt = ft
		}
		w.ws()
		w.i++ // ':'
		if err := w.value(vt, join(path, key)); err != nil {
			return err
		}
		w.ws()
		if w.i < len(w.data) && w.data[w.i] == ',' {
			w.i++
		}
	}
}

// str decodes the string at w.i (which is '"'), checking that it is valid
// Unicode, and leaves w.i after its closing quote.
func (w *walker) str(path string, isKey bool) (string, error) {
	start := w.i
	w.i++
	var b strings.Builder
	for w.i < len(w.data) {
		c := w.data[w.i]
		switch {
		case c == '"':
			w.i++
			return b.String(), nil
		case c == '\\':
			r, n, bad := escape(w.data[w.i:])
			if bad != "" && !w.quiet {
				return "", &TextError{Path: path, Key: isKey, Offset: w.i, Surrogate: bad}
			}
			b.WriteRune(r)
			w.i += n
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			w.i++
		default:
			r, n := utf8.DecodeRune(w.data[w.i:])
			if r == utf8.RuneError && n <= 1 && !w.quiet {
				return "", &TextError{Path: path, Key: isKey, Offset: w.i}
			}
			b.WriteRune(r)
			w.i += n
		}
	}
	return "", &TextError{Path: path, Key: isKey, Offset: start} // unterminated: not valid JSON
}

// escape decodes the escape sequence at the start of s (s[0] is '\'). It
// returns the rune, the sequence's length, and, for a lone surrogate, the
// escape text.
func escape(s []byte) (rune, int, string) {
	if len(s) < 2 {
		return utf8.RuneError, len(s), ""
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2, ""
	case 'b':
		return '\b', 2, ""
	case 'f':
		return '\f', 2, ""
	case 'n':
		return '\n', 2, ""
	case 'r':
		return '\r', 2, ""
	case 't':
		return '\t', 2, ""
	case 'u':
	default:
		return utf8.RuneError, 2, ""
	}
	r1, ok := hex4(s[2:])
	if !ok {
		return utf8.RuneError, 2, ""
	}
	switch {
	case !utf16.IsSurrogate(r1):
		return r1, 6, ""
	case r1 >= 0xdc00: // a low half with no high half before it
		return 0, 6, string(s[:6])
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if r2, ok := hex4(s[8:]); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
			return utf16.DecodeRune(r1, r2), 12, ""
		}
	}
	return 0, 6, string(s[:6])
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[:4]), 16, 32)
	return rune(v), err == nil
}

// target strips pointers and reports types that decode themselves (or
// anything) as nil: only their duplicate keys and text are checked.
func target(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		if t.Implements(unmarshaler) {
			return nil
		}
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	return t
}

var (
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
	rawMessage  = reflect.TypeFor[json.RawMessage]()
)

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// fieldsOf maps the JSON names of a struct's fields to their types, the way
// encoding/json names them (tag name, else the Go name; embedded structs
// without a tag lend their fields).
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	addFields(m, t)
	fieldCache.Store(t, m)
	return m
}

func addFields(m map[string]reflect.Type, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(m, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := m[name]; !taken {
			m[name] = f.Type
		}
	}
}

func near(fields map[string]reflect.Type, key string) string {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return name
		}
	}
	return ""
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
