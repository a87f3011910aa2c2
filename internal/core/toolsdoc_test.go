package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/testkit"
	"github.com/shellport/shellport/internal/tools"
)

const (
	docPath   = "../../docs/TOOLS.md"
	docBegin  = "<!-- BEGIN GENERATED: model-facing texts (UPDATE_GOLDEN=1 go test ./internal/core -run TestToolsDoc) -->"
	docFinish = "<!-- END GENERATED -->"
)

// TestToolsDoc keeps docs/TOOLS.md true: its generated section must hold
// exactly the descriptions and schemas the tools hand to a model. Rewrite it
// with UPDATE_GOLDEN=1.
func TestToolsDoc(t *testing.T) {
	var gen bytes.Buffer
	gen.WriteString(docBegin + "\n")
	seen := map[string]bool{}
	for _, profile := range []string{ProfileOneshot, ProfilePersistent} {
		cfg := Config{Profile: profile}
		if err := cfg.Check(); err != nil {
			t.Fatal(err)
		}
		list, err := buildTools(cfg, tools.Host{SpillDir: t.TempDir()}, Options{SpawnHelper: testkit.SpawnHelper(t)})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list {
			key := profile + "/" + tool.Name()
			if tool.Name() == "str_replace_editor" && seen["str_replace_editor"] {
				continue // the same tool in every profile
			}
			seen[tool.Name()] = true
			var schema bytes.Buffer
			if err := json.Indent(&schema, tool.InputSchema(), "", "  "); err != nil {
				t.Fatalf("%s: schema: %v", key, err)
			}
			fmt.Fprintf(&gen, "\n### `%s` (%s)\n\n```text\n%s\n```\n\n<details><summary>input schema</summary>\n\n```json\n%s\n```\n\n</details>\n",
				tool.Name(), profileLabel(profile, tool.Name()), strings.TrimRight(tool.Description(), "\n"), schema.String())
			if c, ok := tool.(tools.Closer); ok {
				_ = c.Close()
			}
		}
	}
	gen.WriteString("\n" + docFinish)

	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := bytes.Index(doc, []byte(docBegin)), bytes.Index(doc, []byte(docFinish))
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the generated-section markers", docPath)
	}
	current := doc[begin : end+len(docFinish)]
	if bytes.Equal(current, gen.Bytes()) {
		return
	}
	if os.Getenv("UPDATE_GOLDEN") == "" {
		t.Fatalf("%s is stale: the tools' texts changed; run UPDATE_GOLDEN=1 go test ./internal/core -run TestToolsDoc", docPath)
	}
	updated := append(append(append([]byte{}, doc[:begin]...), gen.Bytes()...), doc[end+len(docFinish):]...)
	if err := os.WriteFile(docPath, updated, 0o644); err != nil {
		t.Fatal(err)
	}
}

func profileLabel(profile, name string) string {
	if name == "str_replace_editor" {
		return "every profile"
	}
	return profile + " profile"
}
