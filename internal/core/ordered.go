package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// object is a JSON object that keeps its members in document order, so
// rewriting a schema does not reshuffle the properties a model reads.
type object struct {
	fields []field
}

type field struct {
	key   string
	value any
}

func (o *object) get(key string) any {
	for _, f := range o.fields {
		if f.key == key {
			return f.value
		}
	}
	return nil
}

func (o *object) set(key string, value any) {
	for i, f := range o.fields {
		if f.key == key {
			o.fields[i].value = value
			return
		}
	}
	o.fields = append(o.fields, field{key, value})
}

// decodeOrdered parses JSON into *object, []any, string, json.Number, bool
// and nil.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &object{}
			for dec.More() {
				keyTok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj.fields = append(obj.fields, field{keyTok.(string), val})
			}
			_, err := dec.Token() // '}'
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				val, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, val)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	default:
		return t, nil
	}
}

func encodeOrdered(w *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *object:
		w.WriteByte('{')
		for i, f := range t.fields {
			if i > 0 {
				w.WriteByte(',')
			}
			key, _ := json.Marshal(f.key)
			w.Write(key)
			w.WriteByte(':')
			if err := encodeOrdered(w, f.value); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case []any:
		w.WriteByte('[')
		for i, item := range t {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := encodeOrdered(w, item); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		w.Write(b)
	}
	return nil
}
