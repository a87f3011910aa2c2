package applypatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/shellport/shellport/internal/tools"
)

const (
	docPath   = "../../../docs/TOOLS.md"
	docBegin  = "<!-- BEGIN GENERATED: apply_patch texts (UPDATE_GOLDEN=1 go test ./internal/tools/applypatch -run TestToolsDoc) -->"
	docFinish = "<!-- END GENERATED: apply_patch -->"
)

// TestToolsDoc keeps docs/TOOLS.md true: its apply_patch section must hold
// exactly the descriptions and schemas of both shapes. Rewrite it with
// UPDATE_GOLDEN=1. (Once a profile mounts apply_patch, the runtime's own
// generated section covers these texts and this block can go.)
func TestToolsDoc(t *testing.T) {
	var gen bytes.Buffer
	gen.WriteString(docBegin + "\n")
	for _, s := range []struct {
		label string
		tool  tools.Tool
	}{
		{"function tool, `applypatch.New`", New(tools.Host{}, Config{})},
		{"OpenAI Responses native shape, `applypatch.NewOpenAI`", NewOpenAI(tools.Host{}, Config{})},
	} {
		var schema bytes.Buffer
		if err := json.Indent(&schema, s.tool.InputSchema(), "", "  "); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&gen, "\n### `%s` (%s)\n\n```text\n%s\n```\n\n<details><summary>input schema</summary>\n\n```json\n%s\n```\n\n</details>\n",
			s.tool.Name(), s.label, strings.TrimRight(s.tool.Description(), "\n"), schema.String())
	}
	gen.WriteString("\n" + docFinish)
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := bytes.Index(doc, []byte(docBegin)), bytes.Index(doc, []byte(docFinish))
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the apply_patch generated-section markers", docPath)
	}
	if bytes.Equal(doc[begin:end+len(docFinish)], gen.Bytes()) {
		return
	}
	if os.Getenv("UPDATE_GOLDEN") == "" {
		t.Fatalf("%s is stale: apply_patch's texts changed; run UPDATE_GOLDEN=1 go test ./internal/tools/applypatch -run TestToolsDoc", docPath)
	}
	updated := append(append(append([]byte{}, doc[:begin]...), gen.Bytes()...), doc[end+len(docFinish):]...)
	if err := os.WriteFile(docPath, updated, 0o644); err != nil {
		t.Fatal(err)
	}
}
