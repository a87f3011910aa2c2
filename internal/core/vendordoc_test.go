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
	vendorDocBegin  = "<!-- BEGIN GENERATED: vendor tools (UPDATE_GOLDEN=1 go test ./internal/core -run TestVendorToolsDoc) -->"
	vendorDocFinish = "<!-- END GENERATED: vendor tools -->"
)

// TestVendorToolsDoc keeps docs/TOOLS.md true for the vendors' profiles:
// each tool's native declaration, and the description and schema it has
// as a function tool in the other formats. (apply_patch's native shape
// is in apply_patch's own section.) Rewrite it with UPDATE_GOLDEN=1.
func TestVendorToolsDoc(t *testing.T) {
	var gen bytes.Buffer
	gen.WriteString(vendorDocBegin + "\n")
	for _, v := range []struct{ label, config string }{
		{"anthropic profile", `{"profile":"anthropic"}`},
		{"anthropic profile, text_editor_20250124", `{"profile":"anthropic","tools":{"str_replace_based_edit_tool":{"type":"text_editor_20250124"}}}`},
		{"openai profile", `{"profile":"openai"}`},
	} {
		cfg, err := ParseConfig([]byte(v.config))
		if err != nil {
			t.Fatal(err)
		}
		list, err := buildTools(cfg, tools.Host{SpillDir: t.TempDir()}, Options{SpawnHelper: testkit.SpawnHelper(t)})
		if err != nil {
			t.Fatal(err)
		}
		for i, tool := range list {
			if tool.Name() == "apply_patch" || strings.HasSuffix(v.label, "20250124") && i == 0 {
				continue // documented elsewhere, or above
			}
			var decl []byte
			for _, format := range []string{FormatAnthropic, FormatOpenAIResponses} {
				if d := tool.(tools.Native).Declaration(format); d != nil {
					decl, _ = json.Marshal(d)
					decl = append([]byte(format+": "), decl...)
				}
			}
			var schema bytes.Buffer
			if err := json.Indent(&schema, tool.InputSchema(), "", "  "); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&gen, "\n### `%s` (%s)\n\nDeclared as `%s`. As a function tool:\n\n```text\n%s\n```\n\n<details><summary>input schema</summary>\n\n```json\n%s\n```\n\n</details>\n",
				tool.Name(), v.label, decl, strings.TrimRight(tool.Description(), "\n"), schema.String())
			if c, ok := tool.(tools.Closer); ok {
				_ = c.Close()
			}
		}
	}
	gen.WriteString("\n" + vendorDocFinish)

	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := bytes.Index(doc, []byte(vendorDocBegin)), bytes.Index(doc, []byte(vendorDocFinish))
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the vendor tools' generated-section markers", docPath)
	}
	if bytes.Equal(doc[begin:end+len(vendorDocFinish)], gen.Bytes()) {
		return
	}
	if os.Getenv("UPDATE_GOLDEN") == "" {
		t.Fatalf("%s is stale: the vendor tools' texts changed; run UPDATE_GOLDEN=1 go test ./internal/core -run TestVendorToolsDoc", docPath)
	}
	updated := append(append(append([]byte{}, doc[:begin]...), gen.Bytes()...), doc[end+len(vendorDocFinish):]...)
	if err := os.WriteFile(docPath, updated, 0o644); err != nil {
		t.Fatal(err)
	}
}
