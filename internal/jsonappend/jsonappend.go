// Package jsonappend writes the JSON of a tool call's reply without
// encoding/json's reflection: the handful of shapes a reply is made of
// (strings, numbers, booleans, maps with string keys, slices, raw JSON and
// types that append themselves), byte for byte what json.Marshal gives
// them, HTML-safe escapes and sorted map keys included. Anything else makes
// it report false, and the caller marshals with encoding/json instead, so
// the bytes on the wire never depend on which of the two wrote them
// (FuzzMatchesEncodingJSON holds them to it; issue 16).
package jsonappend

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Appender is a type that writes its own JSON. AppendJSON appends it to dst
// and reports whether it could; on false the caller discards dst and uses
// encoding/json.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, bool)
}

// Value appends v's JSON to dst, reporting false for a value it does not
// write the way encoding/json would.
func Value(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return String(dst, v), true
	case bool:
		return Bool(dst, v), true
	case int:
		return strconv.AppendInt(dst, int64(v), 10), true
	case int64:
		return strconv.AppendInt(dst, v, 10), true
	case int32:
		return strconv.AppendInt(dst, int64(v), 10), true
	case uint64:
		return strconv.AppendUint(dst, v, 10), true
	case float64:
		return Float(dst, v)
	case json.RawMessage:
		return Raw(dst, v)
	case map[string]any:
		return Map(dst, v)
	case []any:
		if v == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = Value(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case []string:
		return Array(dst, v, appendString), true
	case Appender:
		return v.AppendJSON(dst)
	}
	return dst, false
}

// Array appends items as a JSON array, each written by each (which cannot
// fail), or null for a nil slice, as encoding/json writes them. each takes
// the item first, so a method expression (T.appendJSON) fits.
func Array[T any](dst []byte, items []T, each func(T, []byte) []byte) []byte {
	if items == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, e := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = each(e, dst)
	}
	return append(dst, ']')
}

func appendString(s string, dst []byte) []byte { return String(dst, s) }

// Bool appends true or false.
func Bool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// Map appends an object with m's members in key order, as encoding/json
// sorts them.
func Map(dst []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	var small [8]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(String(dst, k), ':')
		var ok bool
		if dst, ok = Value(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// Float appends f as encoding/json writes a float64; false for NaN and
// the infinities, which it refuses.
func Float(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json does
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// Raw appends raw JSON as it is when encoding/json would write it
// unchanged: valid, compact, and with nothing its HTML-safe compaction
// escapes (<, >, &, U+2028, U+2029). Anything else reports false.
func Raw(dst []byte, raw json.RawMessage) ([]byte, bool) {
	if raw == nil {
		return append(dst, "null"...), true
	}
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r', '<', '>', '&':
			return dst, false
		case 0xE2:
			if i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9) {
				return dst, false
			}
		}
	}
	if !json.Valid(raw) {
		return dst, false
	}
	return append(dst, raw...), true
}

const hexDigits = "0123456789abcdef"

// String appends s as a JSON string, escaped as encoding/json escapes it:
// quotes, backslashes and control characters; <, > and & as \u003c,
// \u003e and \u0026; U+2028 and U+2029; invalid UTF-8 as \ufffd.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// safe holds the ASCII bytes a string carries as they are.
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()
