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
