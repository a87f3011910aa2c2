package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// toolsList returns the tools of rt's tools/list in a format, as JSON
// objects, or the error message.
func toolsList(t *testing.T, rt *Runtime, col *collector, format string, strict bool) ([]map[string]any, string) {
	t.Helper()
	id := fmt.Sprintf(`"list-%s-%v"`, format, strict)
	rt.Deliver([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":{"format":%q,"strict":%v}}`, id, format, strict)))
	var reply struct {
		Result struct{ Tools []map[string]any }
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(col.wait(t, id)), &reply); err != nil {
		t.Fatal(err)
	}
	if reply.Error != nil {
		return nil, reply.Error.Message
	}
	return reply.Result.Tools, ""
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 13: the anthropic profile lists Anthropic's native declarations in
// the anthropic format (max_characters from the config, strict accepted),
// and function tools with schemas in every other format.
func TestAnthropicProfileFormats(t *testing.T) {
	rt, col := startRuntime(t, `{"profile":"anthropic","tools":{"str_replace_based_edit_tool":{"max_characters":8000}}}`, t.TempDir())
	list, _ := toolsList(t, rt, col, "anthropic", false)
	if got := compact(t, list); got != `[{"name":"bash","type":"bash_20250124"},{"max_characters":8000,"name":"str_replace_based_edit_tool","type":"text_editor_20250728"}]` {
		t.Fatalf("anthropic: %s", got)
	}
	list, _ = toolsList(t, rt, col, "anthropic", true)
	for _, d := range list {
		if d["strict"] != true || d["input_schema"] != nil {
			t.Fatalf("anthropic strict: %v", d)
		}
	}
	list, _ = toolsList(t, rt, col, "openai-responses", false)
	if len(list) != 2 || list[0]["type"] != "function" || list[0]["name"] != "bash" || list[0]["strict"] != false || list[1]["name"] != "str_replace_based_edit_tool" {
		t.Fatalf("openai-responses: %v", list)
	}
	for _, format := range []string{"mcp", "openai"} {
		list, _ = toolsList(t, rt, col, format, false)
		if len(list) != 2 || list[0]["type"] == "bash_20250124" {
			t.Fatalf("%s: %v", format, list)
		}
	}
	// The older editor, by the config: its name and type, no max_characters.
	rt, col = startRuntime(t, `{"profile":"anthropic","tools":{"str_replace_based_edit_tool":{"type":"text_editor_20250124"}}}`, t.TempDir())
	list, _ = toolsList(t, rt, col, "anthropic", false)
	if got := compact(t, list[1]); got != `{"name":"str_replace_editor","type":"text_editor_20250124"}` {
		t.Fatalf("older editor: %s", got)
	}
	if names, _ := listTools(t, rt, col); strings.Join(names, " ") != "bash str_replace_editor" {
		t.Fatalf("names: %v", names)
	}
}

// Issue 13: the openai profile lists {"type": "shell"} and {"type":
// "apply_patch"} in the openai-responses format, function tools elsewhere;
// strict does not touch the native ones.
func TestOpenAIProfileFormats(t *testing.T) {
	rt, col := startRuntime(t, `{"profile":"openai"}`, t.TempDir())
	for _, strict := range []bool{false, true} {
		list, _ := toolsList(t, rt, col, "openai-responses", strict)
		if got := compact(t, list); got != `[{"type":"shell"},{"type":"apply_patch"}]` {
			t.Fatalf("openai-responses strict=%v: %s", strict, got)
		}
	}
	list, _ := toolsList(t, rt, col, "anthropic", true)
	if len(list) != 2 || list[0]["name"] != "shell" || list[0]["strict"] != true || list[0]["input_schema"] == nil {
		t.Fatalf("anthropic: %v", list)
	}
	list, _ = toolsList(t, rt, col, "openai", true)
	if list[0]["type"] != "function" || list[0]["function"].(map[string]any)["strict"] != true {
		t.Fatalf("openai: %v", list)
	}
}

// Issue 13: the Responses API's function tools, for the other profiles:
// flat, with strict always present.
func TestResponsesFunctionTools(t *testing.T) {
	rt, col := startRuntime(t, `{"profile":"oneshot","tools":{"apply_patch":{}}}`, t.TempDir())
	list, _ := toolsList(t, rt, col, "openai-responses", false)
	if len(list) != 5 {
		t.Fatalf("%d tools", len(list))
	}
	for _, d := range list {
		if d["type"] != "function" || d["name"] == nil || d["description"] == nil || d["parameters"] == nil || d["strict"] != false || len(d) != 5 {
			t.Fatalf("function tool: %v", d)
		}
	}
	strict, _ := toolsList(t, rt, col, "openai-responses", true)
	params := strict[0]["parameters"].(map[string]any)
	if strict[0]["strict"] != true || len(params["required"].([]any)) != len(params["properties"].(map[string]any)) {
		t.Fatalf("strict function tool: %v", strict[0])
	}
	if _, msg := toolsList(t, rt, col, "mcp", true); !strings.Contains(msg, "strict applies to formats") {
		t.Fatalf("strict mcp: %q", msg)
	}
	if _, msg := toolsList(t, rt, col, "gemini", false); !strings.Contains(msg, `unknown format "gemini"`) {
		t.Fatalf("unknown format: %q", msg)
	}
}

// Anthropic's strict mode keeps optional properties optional, closes every
// object and moves what it does not take into the description, as the
// Anthropic SDK's transform_schema does (python/tests-integrations checks
// that the SDK leaves our schemas unchanged).
func TestAnthropicStrictSchema(t *testing.T) {
	in := `{"type":"object","properties":{
		"command":{"type":"string","enum":["view","create"],"description":"what"},
		"n":{"type":"number","minimum":1,"maximum":600000,"description":"how long"},
		"m":{"type":"integer","minimum":0},
		"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}},
		"bare":{"type":"object"},
		"list":{"type":"array","items":{"type":"string"}}},
		"required":["command"],"additionalProperties":false}`
	out, err := anthropicStrictSchema(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"command":{"enum":["view","create"],"description":"what"},` +
		`"n":{"type":"number","description":"how long\n\n{minimum: 1, maximum: 600000}"},` +
		`"m":{"type":"integer","description":"{minimum: 0}"},` +
		`"opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"additionalProperties":false},` +
		`"bare":{"type":"object","properties":{},"additionalProperties":false},` +
		`"list":{"type":"array","items":{"type":"string"}}},` +
		`"required":["command"],"additionalProperties":false}`
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// Issue 13: the vendors' tools keep the names their APIs give them.
func TestVendorNamesAreFixed(t *testing.T) {
	for _, c := range []struct{ config, want string }{
		{`{"profile":"anthropic","tools":{"bash":{"name":"sh"}}}`, `tools.bash.name cannot be changed`},
		{`{"profile":"anthropic","tools":{"str_replace_based_edit_tool":{"name":"edit"}}}`, `tools.str_replace_based_edit_tool.name cannot be changed`},
		{`{"profile":"openai","tools":{"shell":{"name":"bash"}}}`, `tools.shell.name cannot be changed`},
		{`{"profile":"openai","tools":{"apply_patch":{"name":"patch"}}}`, `tools.apply_patch.name cannot be changed`},
		{`{"profile":"anthropic","tools":{"str_replace_based_edit_tool":{"type":"text_editor_20250124","max_characters":100}}}`, `max_characters exists only in text_editor_20250728`},
		{`{"profile":"openai","tools":{"bash":{}}}`, `profile "openai" has no tool "bash" (its tools: shell, apply_patch)`},
	} {
		if _, err := ParseConfig([]byte(c.config)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.config, err, c.want)
		}
	}
	for _, config := range []string{
		`{"profile":"anthropic","tools":{"bash":{"name":"bash","timeoutMs":5000},"str_replace_based_edit_tool":{"max_characters":1}}}`,
		`{"profile":"openai","tools":{"shell":{"maxOutputChars":5000,"maxCommands":4},"apply_patch":{"description":"patch"}}}`,
	} {
		if _, err := ParseConfig([]byte(config)); err != nil {
			t.Errorf("%s: %v", config, err)
		}
	}
}
