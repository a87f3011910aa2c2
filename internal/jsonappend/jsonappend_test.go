package jsonappend_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/jsonappend"
	"github.com/shellport/shellport/internal/tools"
)

// hostile is text every escape rule applies to.
const hostile = "a<b>&c\u2028\u2029\x00\x1f\x7f\b\f\n\r\t\"\\ \xff\xfe\xe2\x80 é 😀"

// same fails unless v appends as json.Marshal writes it, or reports false
// (the caller then uses encoding/json); wantOK says it must not fall back.
func same(t *testing.T, v any, wantOK bool) {
	t.Helper()
	got, ok := jsonappend.Value(nil, v)
	want, err := json.Marshal(v)
	if !ok {
		if wantOK {
			t.Errorf("%#v: fell back to encoding/json", v)
		}
		return
	}
	if err != nil {
		t.Fatalf("%#v: appended %s where encoding/json fails: %v", v, got, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
	}
}

func TestMatchesEncodingJSON(t *testing.T) {
	line := 7
	old, nw := hostile, ""
	card := tools.Presentation{
		Title: hostile, Kind: "read", Status: "completed",
		Content:   []tools.ContentBlock{tools.TextBlock(hostile), {Type: "diff", Path: hostile, OldText: &old, NewText: &nw}},
		Locations: []tools.Location{{Path: hostile}, {Path: "/p", Line: line}},
		RawInput:  json.RawMessage(`{"command":"view","path":"/tmp/a"}`),
		RawOutput: map[string]any{"x": []any{1, 2.5, hostile}},
		Meta:      map[string]any{"z": true, "a": nil, hostile: []string{hostile}},
	}
	result := &core.CallResult{
		Content:           []tools.TextPart{{Type: "text", Text: hostile}},
		StructuredContent: map[string]any{"path": hostile, "totalLines": 1, "truncated": false, "n": int64(-3), "u": uint64(9)},
		Meta:              map[string]any{"presentation": card},
	}
	for _, v := range []any{
		nil, "", hostile, true, false, 0, -1, math.MaxInt64, int32(5),
		0.0, math.Copysign(0, -1), 1.5, 1e-7, 1e21, 123456789.0, 1e-6, 5e-324, math.MaxFloat64,
		json.RawMessage(nil), json.RawMessage(`[1,{"a":"b"}]`),
		map[string]any(nil), map[string]any{}, []any(nil), []any{}, []string(nil), []string{},
		tools.Presentation{}, card, result, &core.CallResult{}, (*core.CallResult)(nil),
		map[string]any{"b": 1, "a": 2, "B": 3, "": 4, "é": 5, "<": 6},
	} {
		same(t, v, true)
	}
	// What encoding/json writes differently (it compacts raw JSON, escapes
	// < > & in it) or refuses: the fallback.
	for _, v := range []any{
		json.RawMessage(` {"a": 1} `), json.RawMessage(`"<"`), json.RawMessage("\"\u2028\""),
		json.RawMessage(`{`), json.RawMessage(``), math.NaN(), math.Inf(1), float32(1.5),
		map[string]any{"f": func() {}}, struct{}{},
	} {
		if got, ok := jsonappend.Value(nil, v); ok {
			t.Errorf("%#v: appended %s; encoding/json must write it", v, got)
		}
	}
}

// FuzzMatchesEncodingJSON builds a reply's result from the input and holds
// jsonappend to encoding/json: the same bytes, or a fallback.
func FuzzMatchesEncodingJSON(f *testing.F) {
	f.Add([]byte(hostile), []byte(`{"command":"view"}`), 1.5, int64(3))
	f.Add([]byte("plain"), []byte(` [1, 2] `), 1e-9, int64(-1))
	f.Add([]byte("\xed\xa0\x80\u2029"), []byte(`"\u003c<"`), math.Inf(-1), int64(0))
	f.Fuzz(func(t *testing.T, text, raw []byte, x float64, n int64) {
		s := string(text)
		var vals []any
		for i := 0; i+8 <= len(text); i += 8 {
			vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(text[i:])))
		}
		card := tools.Presentation{
			Title: s, Kind: s, Status: s,
			Content:   []tools.ContentBlock{tools.TextBlock(s), tools.DiffBlock(s, &s, s)},
			Locations: []tools.Location{{Path: s, Line: int(n)}},
			RawInput:  json.RawMessage(raw),
			RawOutput: vals,
			Meta:      map[string]any{s: x, "n": n},
		}
		same(t, s, true)
		same(t, x, false)
		same(t, json.RawMessage(raw), false)
		same(t, []any{s, x, n, vals}, false)
		same(t, card, false)
		same(t, &core.CallResult{
			Content:           []tools.TextPart{{Type: s, Text: s}},
			IsError:           n%2 == 0,
			StructuredContent: map[string]any{s: s, "x": x},
			Meta:              map[string]any{"presentation": card, s: raw},
		}, false)
	})
}

// BenchmarkCallResult is a view's reply result, as EncodeResponse writes it.
func BenchmarkCallResult(b *testing.B) {
	result := &core.CallResult{
		Content:           []tools.TextPart{{Type: "text", Text: "     1\ta"}},
		StructuredContent: map[string]any{"firstLine": 1, "lastLine": 1, "path": "/tmp/tiny.txt", "totalLines": 1, "truncated": false},
		Meta: map[string]any{"presentation": tools.Presentation{
			Title: "Read /tmp/tiny.txt", Kind: "read", Status: "completed",
			Content:   []tools.ContentBlock{tools.TextBlock("     1\ta")},
			Locations: []tools.Location{{Path: "/tmp/tiny.txt"}},
			RawInput:  json.RawMessage(`{"command":"view","path":"/tmp/tiny.txt"}`),
		}},
	}
	b.Run("jsonappend", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := result.AppendJSON(make([]byte, 0, 1024)); !ok {
				b.Fatal("fell back")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(result); err != nil {
				b.Fatal(err)
			}
		}
	})
}
