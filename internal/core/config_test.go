package core

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/tools"
	"github.com/shellport/shellport/internal/tools/persistent"
)

// Issue 18: config validation had no tests. Issue 11: each tool owns its
// settings, and errors name the tool and the key. Each row is a config and
// the error it must give ("" when it is valid).
func TestParseConfigValidation(t *testing.T) {
	for in, want := range map[string]string{
		``:     "",
		`null`: "",
		`{}`:   "",
		`{"profile":"persistent","tools":{"bash":{"timeoutMs":1000,"shell":"bash"},"str_replace_editor":{"maxOutputChars":2000}}}`: "",
		`{"profile":"turbo"}`:                                           `unknown profile "turbo" (profiles: oneshot, persistent, anthropic, openai)`,
		`{"Profile":"persistent"}`:                                      `unknown key "Profile" (keys are case-sensitive: did you mean "profile"?)`,
		`{"profile":"oneshot","profile":"persistent"}`:                  `key "profile" is given more than once in the config`,
		`{"tools":{"bash":{"timeout":5}}}`:                              `unknown key "timeout" in tools.bash (tools.bash takes: name, description, maxLogBytes, maxOutputChars, maxTasks, maxTimeoutMs, shell, spawnHelper, timeoutMs)`,
		`{"tools":{"bash":{"TimeoutMs":5}}}`:                            `unknown key "TimeoutMs" in tools.bash (keys are case-sensitive: did you mean "timeoutMs"?)`,
		`{"tools":{"bash":{"timeoutMs":5,"timeoutMs":6}}}`:              `key "timeoutMs" is given more than once in tools.bash`,
		`{"tools":{"nope":{}}}`:                                         `profile "oneshot" has no tool "nope" (its tools: bash, bash_output, bash_kill, str_replace_editor, apply_patch (opt-in))`,
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
		`{"tools":{"bash":{"name":"apply_patch"}}}`:                     "", // apply_patch is not mounted
		`{"tools":{"bash":{"name":"apply_patch"},"apply_patch":{}}}`:    `would both be named "apply_patch"`,
		// Swapping two names is fine: no two tools end up with one name.
		`{"tools":{"bash":{"name":"bash_kill"},"bash_kill":{"name":"bash"}}}`: "",
		// Issue 11: the examples of the issue.
		`{"tools":{"str_replace_editor":{"maxTasks":3}}}`:          `unknown key "maxTasks" in tools.str_replace_editor; it is a setting of tools.bash (tools.str_replace_editor takes: name, description, maxOutputChars)`,
		`{"tools":{"str_replace_editor":{"shell":"zsh"}}}`:         `unknown key "shell" in tools.str_replace_editor; it is a setting of tools.bash`,
		`{"tools":{"bash_output":{"maxOutputChars":100}}}`:         `unknown key "maxOutputChars" in tools.bash_output; it is a setting of tools.bash and tools.str_replace_editor (tools.bash_output takes: name, description)`,
		`{"profile":"persistent","tools":{"bash":{"maxTasks":3}}}`: `unknown key "maxTasks" in tools.bash (tools.bash takes: name, description, maxOutputChars, shell, spawnHelper, timeoutMs)`,
		`{"tools":{"bash":{"timeoutMs":"soon"}}}`:                  `tools.bash.timeoutMs must be a whole number, got a string`,
		`{"tools":{"bash":{"timeoutMs":1.5}}}`:                     `tools.bash.timeoutMs must be a whole number, got 1.5`,
		`{"tools":{"bash":{"shell":5}}}`:                           `tools.bash.shell must be a string, got a number`,
		`{"tools":{"bash":5}}`:                                     `tools.bash must be an object, got a number`,
		`{"tools":{"bash":{"maxTasks":3}},"maxOutputChars":5}`:     `unknown key "maxOutputChars"; it is a tool setting: put it in tools.bash or tools.str_replace_editor`,
		`{"tools":{"bash":{"maxMessageBytes":5}}}`:                 `unknown key "maxMessageBytes" in tools.bash; it belongs at the top level of the config`,
		`{"tools":[]}`:                                                      `tools must be an object, got an array`,
		`{"testTools":"yes"}`:                                               `testTools must be true or false, got a string`,
		`{"tools":{"bash":{"timeoutMs":-1}}}`:                               `tools.bash.timeoutMs must be between 1 and 86400000 milliseconds, got -1`,
		`{"tools":{"bash":{"timeoutMs":0}}}`:                                `tools.bash.timeoutMs must be between 1 and 86400000 milliseconds, got 0`,
		`{"tools":{"bash":{"timeoutMs":86400001}}}`:                         `tools.bash.timeoutMs must be between 1 and 86400000`,
		`{"tools":{"bash":{"timeoutMs":86400000,"maxTimeoutMs":86400000}}}`: "",
		`{"tools":{"bash":{"timeoutMs":700000}}}`:                           `tools.bash.timeoutMs is above maxTimeoutMs`,
		`{"tools":{"bash":{"maxTimeoutMs":-1}}}`:                            `tools.bash.maxTimeoutMs must be between 1 and 86400000 milliseconds, got -1`,
		`{"tools":{"bash":{"maxOutputChars":99}}}`:                          `tools.bash.maxOutputChars must be between 100 and 100000000 characters, got 99`,
		`{"tools":{"bash":{"maxTasks":0}}}`:                                 `tools.bash.maxTasks must be between 1 and 1024, got 0`,
		`{"tools":{"bash":{"maxLogBytes":-1}}}`:                             `tools.bash.maxLogBytes must be between 1024 and 1073741824 bytes, got -1`,
		`{"tools":{"bash":{"shell":""}}}`:                                   `tools.bash.shell must not be empty`,
		`{"tools":{"bash":{"shell":"ba\u0000sh"}}}`:                         `tools.bash.shell must not contain NUL characters`,
		`{"profile":"persistent","tools":{"bash":{"timeoutMs":0}}}`:         `tools.bash.timeoutMs must be between 1 and 86400000 milliseconds, got 0`,
		`{"tools":{"str_replace_editor":{"maxOutputChars":999}}}`:           `tools.str_replace_editor.maxOutputChars must be between 1000 and 100000000 characters, got 999`,
		`{"tools":{"str_replace_editor":{"maxOutputChars":1000}}}`:          "",
		`{"tools":{"apply_patch":{}}}`:                                      "",
		`{"tools":{"apply_patch":{"maxOutputChars":1000}}}`:                 `unknown key "maxOutputChars" in tools.apply_patch; it is a setting of tools.bash and tools.str_replace_editor (tools.apply_patch takes: name, description)`,
		`{"maxMessageBytes":-1}`:                                            `maxMessageBytes must not be negative, got -1`,
		`{"profile":"persistent"} {}`:                                       `trailing data after the config object`,
	} {
		_, err := ParseConfig([]byte(in))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s:\n got %v\nwant it to say %q", in, err, want)
		case err != nil && !strings.HasPrefix(err.Error(), "invalid config: "):
			t.Errorf("%s: %q does not start with \"invalid config: \"", in, err)
		}
	}
}

// Issue 11: every key of every tool of every profile is read as that
// tool's own: a wrong type names the key and what it takes, and a key of
// another tool (any tool the runtime has) is refused in this one's object,
// naming the tool and the key.
func TestEveryToolKey(t *testing.T) {
	allKeys := map[string]bool{}
	for _, k := range catalog {
		for _, key := range tools.ConfigKeys(k.config()) {
			allKeys[key] = true
		}
	}
	for _, p := range profiles {
		for _, r := range p.rows {
			cfg := catalog[r.kind].config()
			own := tools.ConfigKeys(cfg)
			if len(own) < 2 || own[0] != "name" || own[1] != "description" {
				t.Errorf("%s/%s: keys %v do not start with name and description", p.name, r.tool, own)
			}
			fields := jsonFields(cfg)
			for _, key := range own {
				bad, wantType := wrongValue(fields[key])
				in := fmt.Sprintf(`{"profile":%q,"tools":{%q:{%q:%s}}}`, p.name, r.tool, key, bad)
				want := fmt.Sprintf("invalid config: tools.%s.%s must be %s, got ", r.tool, key, wantType)
				if _, err := ParseConfig([]byte(in)); err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s:\n got %v\nwant %q…", in, err, want)
				}
			}
			for key := range allKeys {
				if slices.Contains(own, key) {
					continue
				}
				in := fmt.Sprintf(`{"profile":%q,"tools":{%q:{%q:1}}}`, p.name, r.tool, key)
				want := fmt.Sprintf("invalid config: unknown key %q in tools.%s", key, r.tool)
				_, err := ParseConfig([]byte(in))
				if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "(tools."+r.tool+" takes: name, description") {
					t.Errorf("%s:\n got %v\nwant %q… and the keys it takes", in, err, want)
				}
				// A key another tool of the profile takes is named as its.
				for _, other := range p.rows {
					if slices.Contains(tools.ConfigKeys(catalog[other.kind].config()), key) && err != nil && !strings.Contains(err.Error(), "tools."+other.tool) {
						t.Errorf("%s: %v does not say the key belongs to tools.%s", in, err, other.tool)
					}
				}
			}
		}
	}
}

// jsonFields maps a config's JSON keys to their Go types.
func jsonFields(c tools.Config) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				add(f.Type)
				continue
			}
			if f.IsExported() {
				m[name] = f.Type
			}
		}
	}
	add(reflect.TypeOf(c).Elem())
	return m
}

// wrongValue is a JSON value of the wrong type for a field of type t, and
// the words an error uses for what t takes.
func wrongValue(t reflect.Type) (string, string) {
	switch t.Kind() {
	case reflect.Int:
		return `"12"`, "a whole number"
	case reflect.String:
		return `12`, "a string"
	case reflect.Bool:
		return `"yes"`, "true or false"
	}
	panic("no wrong value for " + t.String())
}

// The list of top-level keys the config errors use is Config's.
func TestTopLevelKeys(t *testing.T) {
	var keys []string
	ct := reflect.TypeOf(Config{})
	for i := 0; i < ct.NumField(); i++ {
		if f := ct.Field(i); f.IsExported() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			keys = append(keys, name)
		}
	}
	if !slices.Equal(keys, topLevelKeys) {
		t.Fatalf("Config's keys are %v, topLevelKeys %v", keys, topLevelKeys)
	}
}

// Issue 11: profiles are data. Every row names a kind the catalog has,
// whose defaults (and the row's) pass the kind's own check; tools are
// unique within a profile; the one-shot task tools come with the one-shot
// bash they share an executor with.
func TestProfileTable(t *testing.T) {
	for _, p := range profiles {
		seen := map[string]bool{}
		for _, r := range append(append([]row(nil), p.rows...), testRows...) {
			if seen[r.tool] {
				t.Errorf("profile %s: tool %s twice", p.name, r.tool)
			}
			seen[r.tool] = true
			if _, err := decodeToolConfig(r, nil, p.rows); err != nil {
				t.Errorf("profile %s: the defaults of %s: %v", p.name, r.tool, err)
			}
		}
		for _, r := range p.rows {
			if (r.kind == kindTaskOutput || r.kind == kindTaskKill) && !slices.ContainsFunc(p.rows, func(o row) bool { return o.tool == "bash" && o.kind == kindOneshotBash }) {
				t.Errorf("profile %s: %s without the one-shot bash", p.name, r.tool)
			}
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
	if err != nil || cfg.Profile != ProfilePersistent || cfg.mounted[0].config.(*persistent.Config).TimeoutMs != 5000 {
		t.Fatalf("good file: %+v %v", cfg, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"profile":"persistent","tools":{"bash":{"timeout":5}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(bad); err == nil || !strings.Contains(err.Error(), `config "`+bad+`": invalid config: unknown key "timeout" in tools.bash`) {
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

// Issue 18 (a mutant of checkCwd lived in this package's own tests): the
// cwd of session/new must be given, absolute, existing and a directory.
func TestCheckCwd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for cwd, want := range map[string]string{
		"":                            `"cwd" is required`,
		"rel/dir":                     `cwd "rel/dir" is not absolute`,
		filepath.Join(dir, "missing"): "does not exist or cannot be read: no such file or directory",
		file:                          "is not a directory",
		dir:                           "",
	} {
		err := checkCwd(cwd)
		if want == "" {
			if err != nil {
				t.Errorf("cwd %q: %v", cwd, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("cwd %q: %v, want %q", cwd, err, want)
		}
	}
}
