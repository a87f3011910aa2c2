package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// responsesTool is a Responses API function tool: the Chat Completions
// shape flattened, with strict always present (the API requires the key).
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// anthropicStrictSchema rewrites a JSON Schema for Anthropic's strict tool
// use: every object closes (additionalProperties false) and keeps its
// required list, so optional properties stay optional (unlike OpenAI's
// strict mode); an enum of plain values stands without a type. The result
// is what the Anthropic SDK's transform_schema makes of it, and a fixed
// point of it: the SDK would send it unchanged. Like the SDK, a keyword
// strict mode does not take (minimum, pattern, …) moves into the
// description as "{minimum: 1, maximum: 600000}", so the model still reads
// the constraint and the tool still checks it.
func anthropicStrictSchema(schema json.RawMessage) (json.RawMessage, error) {
	v, err := decodeOrdered(schema)
	if err != nil {
		return nil, fmt.Errorf("read input schema: %w", err)
	}
	if err := anthropicStrictify(v, "the input schema"); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// anthropicKeywords are the keywords Anthropic's strict mode takes, by the
// type they belong to ("" for every type).
var anthropicKeywords = map[string][]string{
	"":       {"type", "description", "title", "enum", "const", "anyOf", "allOf", "$ref", "$defs"},
	"object": {"properties", "required", "additionalProperties"},
	"array":  {"items"},
	"string": {"format"},
}

func anthropicStrictify(v any, where string) error {
	obj, ok := v.(*object)
	if !ok {
		return fmt.Errorf("%s is not an object", where)
	}
	typ, _ := obj.get("type").(string)
	var moved []string
	for _, kv := range obj.fields {
		if !slices.Contains(anthropicKeywords[""], kv.key) && !slices.Contains(anthropicKeywords[typ], kv.key) {
			moved = append(moved, kv.key+": "+pythonText(kv.value))
		}
	}
	if len(moved) > 0 {
		for _, kv := range slices.Clone(obj.fields) {
			if !slices.Contains(anthropicKeywords[""], kv.key) && !slices.Contains(anthropicKeywords[typ], kv.key) {
				obj.remove(kv.key)
			}
		}
		note := "{" + strings.Join(moved, ", ") + "}"
		if d, ok := obj.get("description").(string); ok {
			note = d + "\n\n" + note
		}
		obj.set("description", note)
	}
	if enum, ok := obj.get("enum").([]any); ok && len(enum) > 0 {
		obj.remove("type")
	}
	if props, ok := obj.get("properties").(*object); ok {
		for _, kv := range props.fields {
			if err := anthropicStrictify(kv.value, where+"."+kv.key); err != nil {
				return err
			}
		}
	}
	if typ == "object" {
		if obj.get("properties") == nil {
			obj.set("properties", &object{})
		}
		obj.set("additionalProperties", false)
	}
	if items := obj.get("items"); items != nil {
		if err := anthropicStrictify(items, where+"[]"); err != nil {
			return err
		}
	}
	for _, key := range []string{"anyOf", "allOf"} {
		if list, ok := obj.get(key).([]any); ok {
			for i, item := range list {
				if err := anthropicStrictify(item, fmt.Sprintf("%s.%s[%d]", where, key, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// pythonText writes a schema value the way the Anthropic SDK (Python)
// does when it moves it into a description: str() of the value.
func pythonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	}
	var buf bytes.Buffer
	_ = encodeOrdered(&buf, v) // best effort: our schemas move only numbers
	return buf.String()
}

// remove deletes key from o, keeping the order of the rest.
func (o *object) remove(key string) {
	o.fields = slices.DeleteFunc(o.fields, func(f field) bool { return f.key == key })
}
