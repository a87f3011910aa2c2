package tools

// Formats of tools/list in which a vendor declares some tools by type
// rather than by JSON schema.
const (
	// FormatAnthropic is the Messages API's tools list: native tools are
	// {"type": "bash_20250124", "name": "bash"} and the like.
	FormatAnthropic = "anthropic"
	// FormatOpenAIResponses is the Responses API's tools list: native
	// tools are {"type": "shell"} and {"type": "apply_patch"}.
	FormatOpenAIResponses = "openai-responses"
)

// Native is implemented by a vendor's own tool, one the vendor's model was
// trained on and the vendor's API declares by type: the harness sends the
// declaration, never a schema, and the model already knows the arguments.
// Such a tool still has a name, description and input schema for every
// other format (MCP, or another vendor's function tools).
type Native interface {
	// Declaration returns the tool's declaration in format, as the
	// vendor's API takes it, or nil when the tool is an ordinary function
	// tool in that format.
	Declaration(format string) map[string]any
}
