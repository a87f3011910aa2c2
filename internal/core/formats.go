package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/shellport/shellport/internal/rpc"
	"github.com/shellport/shellport/internal/tools"
)

// Formats of tools/list.
const (
	FormatMCP             = "mcp"
	FormatOpenAI          = "openai" // Chat Completions function tools
	FormatOpenAIResponses = tools.FormatOpenAIResponses
	FormatAnthropic       = tools.FormatAnthropic
)

type toolsListParams struct {
	Format string `json:"format,omitempty"`
	Strict bool   `json:"strict,omitempty"`
	// Session, when given, words the descriptions for that session's
	// sandbox; without it they carry the runtime default's.
	Session string `json:"session,omitempty"`
}

type toolsListResult struct {
	Tools []any `json:"tools"`
}

type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Strict      bool            `json:"strict,omitempty"`
}

type openAITool struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

func (rt *Runtime) toolsList(params json.RawMessage) (any, error) {
	var p toolsListParams
	if err := decodeParams("tools/list", params, &p); err != nil {
		return nil, err
	}
	if p.Format == "" {
		p.Format = FormatMCP
	}
	switch p.Format {
	case FormatMCP, FormatOpenAI, FormatOpenAIResponses, FormatAnthropic:
	default:
		return nil, rpc.Errorf(rpc.CodeInvalidParams, "tools/list: unknown format %q (want %q, %q, %q or %q)", p.Format, FormatMCP, FormatOpenAI, FormatOpenAIResponses, FormatAnthropic)
	}
	if p.Strict && p.Format == FormatMCP {
		return nil, rpc.Errorf(rpc.CodeInvalidParams, "tools/list: strict applies to formats %q, %q and %q, not %q", FormatOpenAI, FormatOpenAIResponses, FormatAnthropic, p.Format)
	}
	rt.mu.Lock()
	reg, pol, forDefault := rt.reg, rt.defaultPolicy, true
	if p.Session != "" {
		s := rt.sessions[p.Session]
		if s == nil {
			err := rt.unknownSession("tools/list", p.Session)
			rt.mu.Unlock()
			return nil, err
		}
		pol, forDefault = s.info.Sandbox, false
	}
	rt.mu.Unlock()
	out := toolsListResult{Tools: []any{}}
	for _, m := range reg.order {
		m := *m
		m.description = describe(&m, pol, forDefault)
		t, err := listed(&m, p.Format, p.Strict)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", m.name, err)
		}
		out.Tools = append(out.Tools, t)
	}
	return out, nil
}

// listed renders one mounted tool in a format: a vendor's native tool as
// the vendor declares it, any other as a function tool with its schema.
func listed(m *mounted, format string, strict bool) (any, error) {
	if n, ok := m.tool.(tools.Native); ok {
		if decl := n.Declaration(format); decl != nil {
			out := maps.Clone(decl)
			if strict && format == FormatAnthropic {
				out["strict"] = true // Anthropic's own schema, enforced
			}
			return out, nil
		}
	}
	switch format {
	case FormatMCP:
		return mcpTool{m.name, m.description, m.schema}, nil
	case FormatAnthropic:
		if !strict {
			return anthropicTool{Name: m.name, Description: m.description, InputSchema: m.schema}, nil
		}
		schema, err := anthropicStrictSchema(m.schema)
		return anthropicTool{m.name, m.description, schema, true}, err
	}
	params := m.schema
	if strict {
		var err error
		if params, err = strictSchema(m.schema); err != nil {
			return nil, err
		}
	}
	if format == FormatOpenAIResponses {
		// strict is required (nullable) in a Responses function tool.
		return responsesTool{Type: "function", Name: m.name, Description: m.description, Parameters: params, Strict: strict}, nil
	}
	return openAITool{Type: "function", Function: openAIFunction{m.name, m.description, params, strict}}, nil
}

// strictSchema rewrites a JSON Schema for OpenAI's strict mode: every object
// closes (additionalProperties false) and requires all its properties, and a
// property that was optional becomes nullable so the model can still leave
// it out by sending null. Property order is kept: models read it.
func strictSchema(schema json.RawMessage) (json.RawMessage, error) {
	v, err := decodeOrdered(schema)
	if err != nil {
		return nil, fmt.Errorf("read input schema: %w", err)
	}
	strictify(v)
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func strictify(v any) {
	obj, ok := v.(*object)
	if !ok {
		if list, ok := v.([]any); ok {
			for _, item := range list {
				strictify(item)
			}
		}
		return
	}
	for _, kv := range obj.fields {
		strictify(kv.value)
	}
	props, ok := obj.get("properties").(*object)
	if !ok {
		if obj.get("type") == "object" {
			obj.set("additionalProperties", false)
		}
		return
	}
	required := map[string]bool{}
	if list, ok := obj.get("required").([]any); ok {
		for _, name := range list {
			if s, ok := name.(string); ok {
				required[s] = true
			}
		}
	}
	all := make([]any, 0, len(props.fields))
	for i, kv := range props.fields {
		all = append(all, kv.key)
		if !required[kv.key] {
			props.fields[i].value = nullable(kv.value)
		}
	}
	obj.set("required", all)
	obj.set("additionalProperties", false)
}

// nullable widens a property schema to also accept null.
func nullable(v any) any {
	prop, ok := v.(*object)
	if !ok {
		return v
	}
	switch t := prop.get("type").(type) {
	case string:
		prop.set("type", []any{t, "null"})
	case []any:
		for _, x := range t {
			if x == "null" {
				return prop
			}
		}
		prop.set("type", append(t, "null"))
	default:
		return &object{fields: []field{{"anyOf", []any{prop, &object{fields: []field{{"type", "null"}}}}}}}
	}
	if enum, ok := prop.get("enum").([]any); ok {
		prop.set("enum", append(enum, nil))
	}
	return prop
}
