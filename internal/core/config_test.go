package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/rpc"
)

// Issue 18: config validation had no tests. Each row is a config and the
// error it must give ("" when it is valid).
func TestParseConfigValidation(t *testing.T) {
	for in, want := range map[string]string{
		``:     "",
		`null`: "",
		`{}`:   "",
		`{"profile":"persistent","tools":{"bash":{"timeoutMs":1000,"shell":"bash"},"str_replace_editor":{"maxOutputChars":2000}}}`: "",
		`{"profile":"turbo"}`:                                           `unknown profile "turbo" (want "oneshot" or "persistent")`,
		`{"Profile":"persistent"}`:                                      `unknown field "Profile" (names are case-sensitive: did you mean "profile"?)`,
		`{"profile":"oneshot","profile":"persistent"}`:                  `field "profile" is given more than once`,
		`{"tools":{"bash":{"timeout":5}}}`:                              `unknown field "timeout" in "tools.bash"`,
		`{"tools":{"bash":{"TimeoutMs":5}}}`:                            `unknown field "TimeoutMs" in "tools.bash" (names are case-sensitive: did you mean "timeoutMs"?)`,
		`{"tools":{"nope":{}}}`:                                         `profile "oneshot" has no tool "nope" (its tools: bash, bash_output, bash_kill, str_replace_editor)`,
		`{"profile":"persistent","tools":{"bash_output":{}}}`:           `profile "persistent" has no tool "bash_output"`,
		`{"tools":{"_echo":{}}}`:                                        `has no tool "_echo"`,
		`{"testTools":true,"tools":{"_echo":{"name":"e"}}}`:             "",
		`{"tools":{"bash":{"name":"run-shell_2"}}}`:                     "",
		`{"tools":{"bash":{"name":"has space"}}}`:                       `tools.bash.name "has space" must be 1-64 letters, digits, '_' or '-'`,
		`{"tools":{"bash":{"name":"émoji"}}}`:                           `must be 1-64 letters`,
		`{"tools":{"bash":{"name":"` + strings.Repeat("a", 64) + `"}}}`: "",
		`{"tools":{"bash":{"name":"` + strings.Repeat("a", 65) + `"}}}`: `must be 1-64 letters`,
		`{"tools":{"bash":{"name":"str_replace_editor"}}}`:              `tools "bash" and "str_replace_editor" would both be named "str_replace_editor"`,
		`{"tools":{"bash":{"name":"x"},"bash_kill":{"name":"x"}}}`:      `would both be named "x"`,
		// Swapping two names is fine: no two tools end up with one name.
		`{"tools":{"bash":{"name":"bash_kill"},"bash_kill":{"name":"bash"}}}`: "",
		`{"tools":{"bash":{"timeoutMs":-1}}}`:                                 `tools.bash.timeoutMs must not be negative, got -1`,
		`{"tools":{"bash":{"maxTimeoutMs":-1}}}`:                              `tools.bash.maxTimeoutMs must not be negative`,
		`{"tools":{"bash":{"maxOutputChars":-1}}}`:                            `tools.bash.maxOutputChars must not be negative`,
		`{"tools":{"bash":{"maxTasks":-1}}}`:                                  `tools.bash.maxTasks must not be negative`,
		`{"tools":{"bash":{"maxLogBytes":-1}}}`:                               `tools.bash.maxLogBytes must not be negative`,
		`{"maxMessageBytes":-1}`:                                              `maxMessageBytes must not be negative, got -1`,
		`{"tools":{"bash":{"timeoutMs":"soon"}}}`:                             `invalid config: `,
		`{"profile":"persistent"} {}`:                                         `invalid config: `,
	} {
		_, err := ParseConfig([]byte(in))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want it to say %q", in, err, want)
		case err != nil && !strings.HasPrefix(err.Error(), "invalid config: "):
			t.Errorf("%s: %q does not start with \"invalid config: \"", in, err)
		}
	}
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := ParseConfig(nil)
	if err != nil || cfg.Profile != ProfileOneshot || cfg.MaxMessageBytes != rpc.DefaultMaxMessage {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	cfg, err = ParseConfig([]byte(`{"maxMessageBytes":1234}`))
	if err != nil || cfg.MaxMessageBytes != 1234 {
		t.Fatalf("maxMessageBytes: %+v %v", cfg, err)
	}
}

// Issue 18: config from a file.
func TestLoadConfigFromFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"profile":"persistent","tools":{"bash":{"timeoutMs":5000}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(good)
	if err != nil || cfg.Profile != ProfilePersistent || cfg.Tools["bash"].TimeoutMs != 5000 {
		t.Fatalf("good file: %+v %v", cfg, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"profile":"persistent","tools":{"bash":{"timeout":5}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(bad); err == nil || !strings.Contains(err.Error(), `config "`+bad+`": invalid config: unknown field "timeout"`) {
		t.Fatalf("bad file must be named with the reason: %v", err)
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "read config: ") {
		t.Fatalf("missing file: %v", err)
	}
}

// Issue 18: the session id and environment checks of session/new.
func TestSessionParamChecks(t *testing.T) {
	for id, ok := range map[string]bool{
		"a":                       true,
		"task-17_v2.3:x":          true,
		strings.Repeat("i", 128):  true,
		strings.Repeat("i", 129):  false,
		"has space":               false,
		"slash/y":                 false,
		"é":                       false,
		"nul\x00":                 false,
		"semi;colon":              false,
		"ABCxyz019_-.:":           true,
		strings.Repeat("é", 64):   false, // 128 bytes, but not allowed characters
		strings.Repeat("x", 1000): false,
	} {
		err := checkSessionID(id)
		if (err == nil) != ok {
			t.Errorf("id %q: got %v, want ok=%v", id, err, ok)
		}
	}
	if err := checkSessionID(strings.Repeat("i", 129)); err == nil || !strings.Contains(err.Error(), "id is 129 bytes long; the limit is 128") {
		t.Errorf("length message: %v", err)
	}
	for name, value := range map[string]string{"": "x", "A=B": "x", "N\x00": "x", "OK": "nul\x00"} {
		if err := checkEnv("env", map[string]string{name: value}); err == nil {
			t.Errorf("env %q=%q accepted", name, value)
		}
	}
	if err := checkEnv("baseEnv", map[string]string{"PATH": "/bin", "lower_case": "", "X1": "=="}); err != nil {
		t.Errorf("valid environment refused: %v", err)
	}
}
