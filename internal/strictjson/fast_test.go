package strictjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fastShape has a field of every kind DecodeFast reads, and some it leaves
// to the slow path.
type fastShape struct {
	Command   string          `json:"command"`
	Path      string          `json:"path,omitempty"`
	Text      *string         `json:"file_text"`
	Range     []int           `json:"view_range"`
	Line      *int            `json:"insert_line"`
	Small     int8            `json:"small"`
	Stream    bool            `json:"stream,omitempty"`
	Flag      *bool           `json:"flag"`
	Args      json.RawMessage `json:"arguments,omitempty"`
	Quoted    int             `json:"quoted,string"`
	Any       any             `json:"any"`
	Names     []string        `json:"names"`
	NoTag     int
	unexposed int
}

// Issue 16: what the fast path decodes, the slow path (and encoding/json)
// decodes to the same value; what it gives up on, it leaves untouched; and
// Decode's answers, errors included, are the slow path's.
func FuzzFastMatchesSlow(f *testing.F) {
	for _, seed := range []string{
		`{"command":"view","path":"/tmp/a.txt"}`,
		`{"command":"view","path":"/tmp/a.txt","view_range":[1,-1]}`,
		`{"command":"view","view_range":[]}`, `{"view_range":null}`, `{"view_range":[1.0]}`,
		`{"command":"insert","insert_line":3,"file_text":"x"}`, `{"insert_line":1e2}`,
		`{"small":127}`, `{"small":128}`, `{"small":-0}`, `{"insert_line":-9223372036854775809}`,
		`{"command":"a","command":"b"}`, `{"Command":"a"}`, `{"command":"\u0041"}`,
		`{"command":"é"}`, "{\"command\":\"\xff\"}", `{"command":null,"file_text":null,"insert_line":null}`,
		`{"stream":true,"flag":false}`, `{"stream":"true"}`, `{"flag":null}`,
		`{"arguments":{"a":[1,{"b":null}],"a":"\ud800"}}`, "{\"arguments\":\"\xff\"}", `{"arguments":null}`,
		`{"quoted":"1"}`, `{"any":1}`, `{"names":["a"]}`, `{"NoTag":1}`, `{"unexposed":1}`,
		` { } `, `{}x`, `{} {}`, `{"command":"a",}`, `[]`, `null`, `{"command":"a"`, `{"arguments":[[[[[[]]]]]]}`,
		`{"arguments":01}`, `{"arguments":1.}`, `{"arguments":-}`, `{"arguments":1e+}`, `{"arguments":"\x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast fastShape
		ok := DecodeFast(data, &fast)
		if !ok && !reflect.DeepEqual(fast, fastShape{}) {
			t.Fatalf("gave up on %q but changed dst: %+v", data, fast)
		}
		var slow fastShape
		slowErr := decodeSlow(data, &slow)
		if ok {
			if slowErr != nil {
				t.Fatalf("fast path took %q, which the slow path refuses: %v", data, slowErr)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q decoded differently:\nfast %+v\nslow %+v", data, fast, slow)
			}
			var plain fastShape
			if err := json.Unmarshal(data, &plain); err != nil || !reflect.DeepEqual(fast, plain) {
				t.Fatalf("%q: encoding/json reads %+v (%v), the fast path %+v", data, plain, err, fast)
			}
		}
		var both fastShape
		err := Decode(data, &both)
		if (err == nil) != (slowErr == nil) || err != nil && err.Error() != slowErr.Error() {
			t.Fatalf("%q: Decode says %v, the slow path %v", data, err, slowErr)
		}
		if err == nil && !reflect.DeepEqual(both, slow) {
			t.Fatalf("%q: Decode gives %+v, the slow path %+v", data, both, slow)
		}
	})
}

// Issue 16: into a value that is already set, the fast path stores what
// encoding/json stores: null empties pointers and slices and leaves the
// rest, a set pointer keeps its target.
func TestFastOverExistingValues(t *testing.T) {
	text, line, flag := "old", 7, true
	start := func() fastShape {
		return fastShape{Command: "c", Text: &text, Range: []int{1, 2, 3}, Line: &line, Stream: true, Flag: &flag, Args: json.RawMessage(`{"x":1}`)}
	}
	for _, in := range []string{
		`{"command":null,"file_text":null,"view_range":null,"insert_line":null,"stream":null,"flag":null,"arguments":null}`,
		`{"command":"d","file_text":"new","view_range":[9],"insert_line":8,"stream":false,"flag":false,"arguments":[1]}`,
		`{"view_range":[]}`, `{}`,
	} {
		fast, slow := start(), start()
		if !DecodeFast([]byte(in), &fast) {
			t.Fatalf("%s: not taken by the fast path", in)
		}
		if err := json.Unmarshal([]byte(in), &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\nfast %+v\njson %+v", in, fast, slow)
		}
	}
}

// Issue 16: the shapes every call sends are taken by the fast path.
func TestFastTakesPlainCalls(t *testing.T) {
	for _, in := range []string{
		`{"command":"view","path":"/tmp/x/tiny.txt"}`,
		` {"command" : "view" , "path":"/ü/ß.txt", "view_range": [ 1 , -1 ] } `,
		`{"arguments":{"command":"view","path":"\u00fc","deep":[{"a":null,"a":true}]},"stream":true}`,
	} {
		var p fastShape
		if !DecodeFast([]byte(in), &p) {
			t.Errorf("%s: left to the slow path", in)
		}
	}
}

// BenchmarkDecodeEditorArgs is the editor's arguments of a view decoded
// strictly, by the fast path and by the slow one (issue 16).
func BenchmarkDecodeEditorArgs(b *testing.B) {
	data := []byte(`{"command":"view","path":"/tmp/tmpd09y3gdz/tiny.txt","view_range":[1,20]}`)
	for _, path := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"fast", Decode}, {"slow", decodeSlow}} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var p fastShape
				if err := path.decode(data, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
