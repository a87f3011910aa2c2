package core

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/shellport/shellport/internal/rpc"
)

// Formats of tools/list.
const (
	FormatMCP       = "mcp"
	FormatOpenAI    = "openai"
	FormatAnthropic = "anthropic"
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
	if p.Strict && p.Format != FormatOpenAI {
		return nil, rpc.Errorf(rpc.CodeInvalidParams, "tools/list: strict applies to format %q only, not %q", FormatOpenAI, p.Format)
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
		switch p.Format {
		case FormatMCP:
			out.Tools = append(out.Tools, mcpTool{m.name, m.description, m.schema})
		case FormatAnthropic:
			out.Tools = append(out.Tools, anthropicTool{m.name, m.description, m.schema})
		case FormatOpenAI:
			params := m.schema
			if p.Strict {
				var err error
				if params, err = strictSchema(m.schema); err != nil {
					return nil, fmt.Errorf("tool %q: %w", m.name, err)
				}
			}
			out.Tools = append(out.Tools, openAITool{Type: "function", Function: openAIFunction{m.name, m.description, params, p.Strict}})
		default:
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "tools/list: unknown format %q (want %q, %q or %q)", p.Format, FormatMCP, FormatOpenAI, FormatAnthropic)
		}
	}
	return out, nil
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
