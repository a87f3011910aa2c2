package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeMessages(t *testing.T) {
	type params struct {
		Command string `json:"command"`
		Count   int    `json:"count"`
		Flag    bool   `json:"flag"`
	}
	for args, want := range map[string]string{
		`{"command":1}`:           `"command" must be a string, got number`,
		`{"count":"x"}`:           `"count" must be a number, got string`,
		`{"flag":"yes"}`:          `"flag" must be a boolean, got string`,
		`{"bogus":1}`:             `unknown argument "bogus"`,
		`{"command":"a"`:          `the arguments end too early`,
		`[1]`:                     `expected an object, got array`,
		`{"command":"a"} {"x":1}`: `trailing data`,
		// Issue 10: keys are exact, given once, and text is valid Unicode.
		`{"command":"echo ok","Command":"echo SMUGGLED"}`: `unknown argument "Command" (argument names are case-sensitive; did you mean "command"?)`,
		`{"command":"echo ok","command":"echo SMUGGLED"}`: `argument "command" is given more than once`,
		`{"command":"echo \ud800"}`:                       `argument "command" holds the escape \ud800, half of a UTF-16 surrogate pair without its other half`,
		"{\"command\":\"echo \xff\"}":                     `argument "command" is not valid UTF-8 (bad byte at offset 17 of the arguments); nothing was run`,
		"{\"\xff\":1}":                                    `an argument name is not valid UTF-8`,
	} {
		var p params
		err := Decode(json.RawMessage(args), &p)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "invalid arguments: ") {
			t.Errorf("Decode(%s) = %v, want it to say %q", args, err, want)
		}
	}
	var p params
	if err := Decode(nil, &p); err != nil {
		t.Errorf("absent arguments are an empty object: %v", err)
	}
}

func TestEnviron(t *testing.T) {
	s := Session{Env: map[string]string{"B": "2", "A": "1", "HOME": "/h"}}
	got := strings.Join(s.Environ([]string{"HOME=/root", "PATH=/bin"}), " ")
	if got != "PATH=/bin A=1 B=2 HOME=/h" {
		t.Fatalf("got %q", got)
	}
}
