package rpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 10: ids compare as JSON values, never as re-escaped text.
func TestIDKeyComparesJSONValues(t *testing.T) {
	same := [][]string{
		{`"a<b"`, `"a\u003cb"`, `"\u0061<b"`},
		{`"x` + "\u2028" + `"`, `"x\u2028"`},
		{`10`, `10.0`, `1e1`, `1E+1`, `100e-1`, `0.1e2`},
		{`0`, `-0`, `0.0`, `0e5`},
		{`-3`, `-3.000`, `-30e-1`},
		{`12345678901234567890123`, `12345678901234567890123.0`},
	}
	for _, group := range same {
		for _, id := range group[1:] {
			if ID(id).Key() != ID(group[0]).Key() {
				t.Errorf("%s and %s are one id: keys %q and %q", group[0], id, ID(group[0]).Key(), ID(id).Key())
			}
			if ID(id).key() != ID(group[0]).key() {
				t.Errorf("%s and %s are one id: map keys %+v and %+v", group[0], id, ID(group[0]).key(), ID(id).key())
			}
		}
	}
	differ := [][2]string{
		{`1`, `"1"`}, {`10`, `1`}, {`12345678901234567890123`, `12345678901234567890124`},
		{`"a"`, `"A"`}, {`0.1`, `1`}, {`-1`, `1`}, {`1e999999999999`, `1e999999999998`},
	}
	for _, d := range differ {
		if ID(d[0]).Key() == ID(d[1]).Key() {
			t.Errorf("%s and %s must be different ids (key %q)", d[0], d[1], ID(d[0]).Key())
		}
		if ID(d[0]).key() == ID(d[1]).key() {
			t.Errorf("%s and %s must be different ids (map key %+v)", d[0], d[1], ID(d[0]).key())
		}
	}
}

// Issue 16: the in-flight set's key (a whole number by its value, without
// allocating) tells ids apart exactly as Key does, across the spellings of
// a number and at the edge of the numbers it keeps by value.
func TestIDMapKeyAgreesWithKey(t *testing.T) {
	ids := []string{`0`, `-0`, `0.0`, `0e5`, `1`, `-1`, `"1"`, `10`, `10.0`, `1e1`, `1E+1`, `100e-1`, `0.1e2`,
		`0.1`, `1e-1`, `-3`, `-3.000`, `-30e-1`, `17`, `17.5`, `175e-1`, `999999999999999999`,
		`999999999999999999.0`, `9.99999999999999999e17`, `1000000000000000000`, `1e18`, `1e17`,
		`100000000000000000`, `-999999999999999999`, `9223372036854775807`, `9223372036854775808`,
		`12345678901234567890123`, `1e999999999999`, `1e-999999999999`, `""`, `"a"`, `"n0"`}
	for _, a := range ids {
		for _, b := range ids {
			if (ID(a).Key() == ID(b).Key()) != (ID(a).key() == ID(b).key()) {
				t.Errorf("%s and %s: keys %q and %q, map keys %+v and %+v", a, b, ID(a).Key(), ID(b).Key(), ID(a).key(), ID(b).key())
			}
		}
	}
	small := ID(`12345`)
	if n := testing.AllocsPerRun(100, func() { _ = small.key() }); n != 0 {
		t.Errorf("the map key of a whole-number id allocates %v times", n)
	}
}

// Issue 10: replies echo the id byte for byte; encoding/json would turn
// <, >, & and U+2028 into escapes a client matching text never finds.
func TestEncodeResponseEchoesIDExactly(t *testing.T) {
	for _, id := range []string{`"a<b>&c"`, "\"l\u2028s\u2029\"", `"a\u003cb"`, `1.50`, `-0`, `1E3`, `""`} {
		out, err := EncodeResponse(ID(id), map[string]int{"x": 1}, nil)
		if err != nil || !strings.HasPrefix(string(out), `{"jsonrpc":"2.0","id":`+id+`,"result":{"x":1}}`) || !json.Valid(out) {
			t.Errorf("id %s: %s %v", id, out, err)
		}
	}
	out, _ := EncodeResponse(nil, nil, Errorf(CodeParseError, "bad"))
	if string(out) != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}` {
		t.Errorf("null id: %s", out)
	}
}

func TestInvalidIDsAreInvalidRequests(t *testing.T) {
	for _, id := range []string{`true`, `false`, `null`, `{}`, `[]`, `{"a":1}`, `[1]`, `"\ud800"`, "\"\xff\""} {
		req, rpcErr := Decode([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"m"}`))
		if rpcErr == nil || rpcErr.Code != CodeInvalidRequest || req == nil || len(req.ID) != 0 {
			t.Errorf("id %q: want invalid request with a null id, got %v %+v", id, rpcErr, req)
		}
	}
}

// Issue 10: $/cancelRequest sent as a request (with an id) got no reply.
func TestCancelSentAsRequestIsAnswered(t *testing.T) {
	s, r := testServer(t)
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":"job","method":"block"}`))
	// The id is spelt differently from the request's: it is the same value.
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":"c","method":"$/cancelRequest","params":{"id":"\u006aob"}}`))
	if got := r.wait(`"c"`); code(got) != 0 {
		t.Fatalf("cancel request: %v", got)
	}
	if got := code(r.wait(`"job"`)); got != CodeRequestCancelled {
		t.Fatalf("the job: code %d, want cancelled", got)
	}
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":"bad","method":"$/cancelRequest","params":{"id":{}}}`))
	if got := code(r.wait(`"bad"`)); got != CodeInvalidParams {
		t.Fatalf("malformed cancel request: code %d", got)
	}
}

// A delivery's reply goes to its own sink; notifications never expect one.
func TestDeliverToSendsTheOneReplyToTheSink(t *testing.T) {
	s, r := testServer(t)
	got := make(chan []byte, 4)
	sink := func(msg []byte) error { got <- msg; return nil }
	if !s.DeliverTo([]byte(`{"jsonrpc":"2.0","id":true,"method":"echo"}`), sink) {
		t.Fatal("an invalid request expects its error reply")
	}
	if msg := <-got; !strings.Contains(string(msg), `"id":null`) || !strings.Contains(string(msg), "-32600") {
		t.Fatalf("invalid id: %s", msg)
	}
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`))
	if !s.DeliverTo([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`), sink) {
		t.Fatal("a request expects a reply")
	}
	if msg := <-got; !strings.Contains(string(msg), "already in use") {
		t.Fatalf("duplicate: %s", msg)
	}
	if s.DeliverTo([]byte(`{"jsonrpc":"2.0","method":"echo"}`), sink) {
		t.Fatal("a notification expects no reply")
	}
	s.CancelAll()
	if got := code(r.wait("1")); got != CodeRequestCancelled {
		t.Fatalf("the first request's reply went elsewhere: %d", got)
	}
	if len(got) != 0 {
		t.Fatalf("the sink got another request's reply: %s", <-got)
	}
}

// FuzzIDFromHead checks that the id reader never panics and only ever
// returns an id the full decoder would accept.
func FuzzIDFromHead(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"aaaa`,
		`{"params":{"x":"aaaa"},"id":"abc"}`, `{"id":{"nested":1}}`, `{"id":"\ud800"}`,
		`{"id":true}`, `[1,2`, `{"id":1e5`, `{"a":[{"id":3}],"id":4}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		id := IDFromHead(head)
		if len(id) == 0 {
			return
		}
		if !json.Valid(id) || !validID(json.RawMessage(id)) {
			t.Fatalf("IDFromHead(%q) = %q, not a valid id", head, id)
		}
		_ = id.Key()
	})
}

// FuzzIDKey checks that Key never panics and is the same for an id and the
// same value re-encoded by encoding/json.
func FuzzIDKey(f *testing.F) {
	for _, seed := range []string{`1`, `1.0e3`, `-0`, `"a<b"`, `"\u2028"`, `1e99999999999`, `0.000`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		raw := []byte(id)
		if !json.Valid(raw) || !validID(raw) {
			return
		}
		key := ID(raw).Key()
		if raw[0] != '"' {
			return
		}
		var s string
		_ = json.Unmarshal(raw, &s)
		again, _ := json.Marshal(s)
		if ID(again).Key() != key {
			t.Fatalf("%s and its re-encoding %s have different keys", raw, again)
		}
	})
}

// Issue 16: for any two ids the server could hold, the in-flight set's key
// and Key agree on whether they are one id.
func FuzzIDMapKeyAgreesWithKey(f *testing.F) {
	for _, seed := range [][2]string{{`10`, `1e1`}, {`-0`, `0.0`}, {`999999999999999999`, `9.99999999999999999e17`},
		{`1e18`, `1000000000000000000`}, {`"a"`, `1`}, {`12.5`, `125e-1`}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, id := range []string{a, b} {
			if !json.Valid([]byte(id)) || !validID(json.RawMessage(id)) {
				return
			}
		}
		if (ID(a).Key() == ID(b).Key()) != (ID(a).key() == ID(b).key()) {
			t.Fatalf("%s and %s: keys %q and %q, map keys %+v and %+v", a, b, ID(a).Key(), ID(b).Key(), ID(a).key(), ID(b).key())
		}
	})
}
