package strictjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

type inner struct {
	Deep bool `json:"deep"`
}

type params struct {
	Command string          `json:"command"`
	Count   *int            `json:"count,omitempty"`
	Tags    []string        `json:"tags"`
	Opts    *inner          `json:"opts"`
	List    []inner         `json:"list"`
	Env     map[string]any  `json:"env"`
	Raw     json.RawMessage `json:"raw"`
	Any     any             `json:"any"`
	NoTag   int
	skipped int // proves unexported fields are not keys
	Ignored int `json:"-"`
}

// Issue 10: {"command": "echo ok", "Command": "echo SMUGGLED"} ran the
// second command; encoding/json matched the key without regard to case.
func TestCaseVariantKeyIsUnknown(t *testing.T) {
	var p params
	err := Decode([]byte(`{"command":"echo ok","Command":"echo SMUGGLED"}`), &p)
	var unknown *UnknownKeyError
	if !errors.As(err, &unknown) || unknown.Key != "Command" || unknown.Near != "command" {
		t.Fatalf("want the case variant refused with a hint, got %v", err)
	}
	if want := `unknown field "Command" (names are case-sensitive: did you mean "command"?)`; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

// Issue 10: the last of two equal keys won.
func TestDuplicateKeyIsRefused(t *testing.T) {
	for _, in := range []string{
		`{"command":"a","command":"b"}`,
		`{"command":"a","comm\u0061nd":"b"}`, // the same key spelt with an escape
		`{"opts":{"deep":true,"deep":false}}`,
		`{"list":[{"deep":true},{"deep":true,"deep":false}]}`,
		`{"env":{"X":1,"X":2}}`,
		`{"any":[{"k":1,"k":1}]}`,
	} {
		var p params
		var dup *DuplicateKeyError
		if err := Decode([]byte(in), &p); !errors.As(err, &dup) {
			t.Errorf("%s: want a duplicate-key error, got %v", in, err)
		}
	}
}

func TestUnknownKeysAtEveryDepth(t *testing.T) {
	for in, want := range map[string]string{
		`{"bogus":1}`:                   `unknown field "bogus"`,
		`{"opts":{"Deep":true}}`:        `unknown field "Deep" in "opts" (names are case-sensitive: did you mean "deep"?)`,
		`{"list":[{},{"x":1}]}`:         `unknown field "x" in "list[1]"`,
		`{"skipped":1}`:                 `unknown field "skipped"`,
		`{"Ignored":1}`:                 `unknown field "Ignored"`,
		`{"notag":1}`:                   `unknown field "notag" (names are case-sensitive: did you mean "NoTag"?)`,
		`{"COMMAND":"x","command":"y"}`: `unknown field "COMMAND" (names are case-sensitive: did you mean "command"?)`,
	} {
		var p params
		err := Decode([]byte(in), &p)
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestExactKeysDecode(t *testing.T) {
	var p params
	in := `{"command":"ls","count":3,"tags":["a"],"opts":{"deep":true},"list":[{"deep":true}],"env":{"Any":"key"},"raw":{"Free":1},"any":{"K":1},"NoTag":4}`
	if err := Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if p.Command != "ls" || *p.Count != 3 || !p.Opts.Deep || p.NoTag != 4 || p.Env["Any"] != "key" {
		t.Fatalf("decoded %+v", p)
	}
}

// A json.RawMessage is the decoder's to check: tools/call's arguments are
// judged by the tool, which words the error for the model.
func TestRawMessageIsLeftToItsDecoder(t *testing.T) {
	var p params
	if err := Decode([]byte(`{"raw":{"a":1,"a":2,"s":"\ud800","A":3}}`), &p); err != nil {
		t.Fatalf("a raw value is not checked: %v", err)
	}
	if string(p.Raw) != `{"a":1,"a":2,"s":"\ud800","A":3}` {
		t.Fatalf("raw %s", p.Raw)
	}
	if err := Decode([]byte(`{"raw":{},"raw":{}}`), &p); err == nil {
		t.Fatal("the raw member itself may still be given only once")
	}
}

// Issue 10: invalid UTF-8 was silently rewritten to U+FFFD and run.
func TestInvalidTextIsRefused(t *testing.T) {
	for in, want := range map[string]string{
		"{\"command\":\"echo \xff\"}":    `the value of "command" is not valid UTF-8 (at byte 17)`,
		"{\"tags\":[\"ok\",\"\xc3\"]}":   `the value of "tags[1]" is not valid UTF-8`,
		"{\"comm\xe9nd\":1}":             `a field name is not valid UTF-8`,
		`{"command":"\ud800"}`:           `the value of "command" holds \ud800, a lone UTF-16 surrogate`,
		`{"command":"\udc00\ud800"}`:     `holds \udc00`,
		`{"command":"a\ud83dz"}`:         `holds \ud83d`,
		`{"command":"\ud83d\u0041"}`:     `holds \ud83d`,
		`{"opts":{"\udfff":1}}`:          `a field name in "opts" holds \udfff`,
		"{\"command\":\"\xed\xa0\x80\"}": `not valid UTF-8`, // a surrogate encoded as UTF-8 (CESU)
	} {
		var p params
		err := Decode([]byte(in), &p)
		var te *TextError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want it to say %q", in, err, want)
		}
	}
	// Escapes that are characters, and a proper pair, are fine.
	var p params
	if err := Decode([]byte(`{"command":"\ud83d\ude00 \u00e9 \\ud800 \" \/ \b\f\n\r\t"}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Command != "😀 é \\ud800 \" / \b\f\n\r\t" {
		t.Fatalf("decoded %q", p.Command)
	}
}

func TestSyntaxAndTypeErrorsAreEncodingJSONs(t *testing.T) {
	var p params
	var syn *json.SyntaxError
	if err := Decode([]byte(`{"command":`), &p); err == nil {
		t.Fatal("truncated input accepted")
	}
	if err := Decode([]byte(`{"command" 1}`), &p); !errors.As(err, &syn) {
		t.Fatalf("want a syntax error, got %v", err)
	}
	var typ *json.UnmarshalTypeError
	if err := Decode([]byte(`{"count":"x"}`), &p); !errors.As(err, &typ) || typ.Field != "count" {
		t.Fatalf("want a type error on count, got %v", err)
	}
	for _, in := range []string{`{} {}`, `{}]`, `{}x`} {
		if err := Decode([]byte(in), &p); err == nil {
			t.Errorf("%s: trailing data accepted", in)
		}
	}
}

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// encoding/json reads the same way: the same value, from text with no
// duplicate keys and only valid Unicode.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"command":"echo ok","Command":"echo SMUGGLED"}`,
		`{"command":"a","command":"b"}`,
		`{"opts":{"deep":true},"list":[{"deep":false}],"tags":["x"]}`,
		`{"command":"\ud800"}`, `{"command":"\ud83d\ude00"}`,
		"{\"command\":\"\xff\"}", `{"env":{"A":"1"},"any":[1,{"k":null}],"raw":"s"}`,
		`[]`, `null`, `{"count":1e3}`, `{"count":-0}`,
	} {
		f.Add([]byte(seed))
	}
	// No json.RawMessage here: its contents are deliberately not checked.
	type strict struct {
		Command string         `json:"command"`
		Count   *int           `json:"count,omitempty"`
		Tags    []string       `json:"tags"`
		Opts    *inner         `json:"opts"`
		List    []inner        `json:"list"`
		Env     map[string]any `json:"env"`
		Any     any            `json:"any"`
		NoTag   int
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p strict
		if Decode(data, &p) != nil {
			return
		}
		if !json.Valid(data) || !utf8.Valid(data) {
			t.Fatalf("accepted input that is not valid UTF-8 JSON: %q", data)
		}
		var q strict
		if err := json.Unmarshal(data, &q); err != nil {
			t.Fatalf("accepted input encoding/json refuses: %q: %v", data, err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("decoded differently from encoding/json: %q\n%+v\n%+v", data, p, q)
		}
		if err := Check(data, nil); err != nil {
			t.Fatalf("accepted, but Check finds %v in %q", err, data)
		}
	})
}

// FuzzCheckTerminates feeds Check arbitrary bytes, valid JSON or not: it
// must return, without panicking.
func FuzzCheckTerminates(f *testing.F) {
	for _, seed := range []string{`[`, `{"a":[1,`, `{"a"`, `"\u12`, `{"a":{"b":[{"c":"\ud800"`, `[[[[`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Check(data, reflect.TypeFor[params]())
		_ = Check(data, nil)
	})
}
