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
// exactly the descriptions and schemas the tools of every profile hand to
// a model (a tool that reads the same in several profiles is shown once),
// for our own profiles; the vendors' are TestVendorToolsDoc's.
// Rewrite it with UPDATE_GOLDEN=1.
func TestToolsDoc(t *testing.T) {
	type entry struct {
		name, description, schema string
		profiles                  []string
	}
	var entries []*entry
	for _, p := range profiles {
		if p.name == "anthropic" || p.name == "openai" {
			continue // the vendors' tools have their own section (TestVendorToolsDoc)
		}
		cfg := Config{Profile: p.name}
		if err := cfg.Check(); err != nil {
			t.Fatal(err)
		}
		list, err := buildTools(cfg, tools.Host{SpillDir: t.TempDir()}, Options{SpawnHelper: testkit.SpawnHelper(t)})
		if err != nil {
			t.Fatal(err)
		}
	next:
		for _, tool := range list {
			var schema bytes.Buffer
			if err := json.Indent(&schema, tool.InputSchema(), "", "  "); err != nil {
				t.Fatalf("%s/%s: schema: %v", p.name, tool.Name(), err)
			}
			e := &entry{tool.Name(), strings.TrimRight(tool.Description(), "\n"), schema.String(), []string{p.name}}
			if c, ok := tool.(tools.Closer); ok {
				_ = c.Close()
			}
			for _, seen := range entries {
				if seen.name == e.name && seen.description == e.description && seen.schema == e.schema {
					seen.profiles = append(seen.profiles, p.name)
					continue next
				}
			}
			entries = append(entries, e)
		}
	}
	var gen bytes.Buffer
	gen.WriteString(docBegin + "\n")
	for _, e := range entries {
		fmt.Fprintf(&gen, "\n### `%s` (%s)\n\n```text\n%s\n```\n\n<details><summary>input schema</summary>\n\n```json\n%s\n```\n\n</details>\n",
			e.name, profileLabel(e.profiles), e.description, e.schema)
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

// profileLabel names the profiles a tool reads the same in: "oneshot
// profile", "oneshot and persistent profiles".
func profileLabel(names []string) string {
	if len(names) == 1 {
		return names[0] + " profile"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " profiles"
}
