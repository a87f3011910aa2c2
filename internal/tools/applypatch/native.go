package applypatch

import (
	"fmt"

	"github.com/shellport/shellport/internal/tools"
)

// OpenAIType is the native shape's type in a Responses API tools list: the
// tool's name.
const OpenAIType = Name

// OpenAIConfig is the config of the native shape ({"tools":
// {"apply_patch": {…}}} in the openai profile): no settings of its own,
// and its name is fixed.
type OpenAIConfig struct {
	tools.Common
}

var _ tools.Config = (*OpenAIConfig)(nil)

// Check refuses a name other than the tool's: the Responses API's
// apply_patch_call carries no name, so the tool is always Name.
func (c *OpenAIConfig) Check() error {
	if c.Name != "" && c.Name != Name {
		return &tools.KeyError{Key: "name", Problem: fmt.Sprintf("cannot be changed: the Responses API's patch calls carry no name, so the tool is always %q (the function tool of the other profiles can be renamed)", Name)}
	}
	return nil
}

var _ tools.Native = (*tool)(nil)

// Declaration is {"type": "apply_patch"} for the native shape in the
// Responses API's format; the function tool has no native declaration.
func (t *tool) Declaration(format string) map[string]any {
	if t.shape != operationShape || format != tools.FormatOpenAIResponses {
		return nil
	}
	return map[string]any{"type": OpenAIType}
}
