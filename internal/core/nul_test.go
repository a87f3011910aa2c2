package core

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/strictjson"
)

// FuzzHasNUL checks the NUL scan against a full decode: for valid JSON,
// hasNUL reports a NUL exactly when some string (value or key) holds one.
func FuzzHasNUL(f *testing.F) {
	for _, seed := range []string{
		`{"a":"x\u0000"}`, `{"a":"x\\u0000"}`, `{"a":"x\\\u0000"}`, `{"\u0000":1}`,
		`{"a":["\u0000"]}`, `{"a":"\u0000","a":"x"}`, `{"a":"\\\\u0000"}`, `{"a":"trailing\\"}`, `{"a":"\u00000"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := hasNUL(raw)
		if !json.Valid(raw) || strictjson.Check(raw, nil) != nil {
			return // duplicate keys could hide a NUL from the model decode
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return
		}
		if want := holdsNUL(v); got != want {
			t.Fatalf("hasNUL(%q) = %v, but the decoded value holds a NUL: %v", raw, got, want)
		}
	})
}

func holdsNUL(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.ContainsRune(t, 0)
	case []any:
		for _, e := range t {
			if holdsNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range t {
			if strings.ContainsRune(k, 0) || holdsNUL(e) {
				return true
			}
		}
	}
	return false
}
