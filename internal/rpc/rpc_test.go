package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFrameReaderSplitsLinesAndSkipsBlank(t *testing.T) {
	in := "{\"a\":1}\r\n\n   \n{\"b\":2}\n{\"c\":3}"
	r := NewFrameReader(strings.NewReader(in), 0)
	var got []string
	for {
		msg, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(msg))
	}
	want := []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestFrameReaderTooLargeSkipsAndContinues(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	in := `{"a":1}` + "\n" + big + "\n" + `{"b":2}` + "\n"
	r := NewFrameReader(strings.NewReader(in), 100<<10)
	msg, err := r.Read()
	if err != nil || string(msg) != `{"a":1}` {
		t.Fatalf("first: %q %v", msg, err)
	}
	_, err = r.Read()
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 100<<10 || tl.Size != len(big) {
		t.Fatalf("want TooLargeError of %d bytes, got %v", len(big), err)
	}
	msg, err = r.Read()
	if err != nil || string(msg) != `{"b":2}` {
		t.Fatalf("after the large message the stream must go on: %q %v", msg, err)
	}
}

func TestFrameReaderExactlyAtLimit(t *testing.T) {
	line := strings.Repeat("y", 1000)
	r := NewFrameReader(strings.NewReader(line+"\n"), 1000)
	msg, err := r.Read()
	if err != nil || len(msg) != 1000 {
		t.Fatalf("a message of exactly the limit is accepted: len %d, %v", len(msg), err)
	}
}

func TestIDFromHead(t *testing.T) {
	for head, want := range map[string]string{
		`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"aaaa`: "42",
		`{"id":"abc","params":{"x":"aaaa`:                                    `"abc"`,
		`{"jsonrpc":"2.0","method":"m","params":{"x":"aaaa`:                  "",
		`{"params":{"x":"aaaa"},"id":7}`:                                     "7",
		`{"id":{"nested":1}}`:                                                "",
		`[1,2`:                                                               "",
	} {
		if got := IDFromHead([]byte(head)).String(); got != want {
			t.Errorf("IDFromHead(%s) = %q, want %q", head, got, want)
		}
	}
}

func TestDecode(t *testing.T) {
	cases := []struct {
		name, msg string
		code      int // 0: valid
		id        string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`, 0, "1"},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"m"}`, 0, `"a"`},
		{"notification", `{"jsonrpc":"2.0","method":"m"}`, 0, ""},
		{"not json", `{"jsonrpc":`, CodeParseError, ""},
		{"two values", `{"jsonrpc":"2.0","method":"m"} {}`, CodeParseError, ""},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"m"}`, CodeInvalidRequest, "7"},
		{"no version", `{"id":7,"method":"m"}`, CodeInvalidRequest, "7"},
		{"no method", `{"jsonrpc":"2.0","id":7}`, CodeInvalidRequest, "7"},
		{"method not string", `{"jsonrpc":"2.0","id":7,"method":3}`, CodeInvalidRequest, "7"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"m"}`, CodeInvalidRequest, ""},
		{"array params", `{"jsonrpc":"2.0","id":7,"method":"m","params":[1]}`, CodeInvalidParams, "7"},
		{"array message", `[1,2]`, CodeInvalidRequest, ""},
		{"response", `{"jsonrpc":"2.0","id":7,"result":{}}`, CodeInvalidRequest, "7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, rpcErr := Decode([]byte(c.msg))
			code := 0
			if rpcErr != nil {
				code = rpcErr.Code
			}
			if code != c.code {
				t.Fatalf("code %d, want %d (%v)", code, c.code, rpcErr)
			}
			id := ""
			if req != nil {
				id = req.ID.String()
			}
			if id != c.id {
				t.Fatalf("id %q, want %q", id, c.id)
			}
		})
	}
}

// replies records what a Server sends and fails the test if any request is
// answered twice or never (the MustReply rule).
type replies struct {
	t        *testing.T
	allowDup bool // for the test that sends one id twice on purpose
	mu       sync.Mutex
	byID     map[string][]map[string]any
	all      []map[string]any
	got      chan struct{}
}

func newReplies(t *testing.T) *replies {
	return &replies{t: t, byID: map[string][]map[string]any{}, got: make(chan struct{}, 1000)}
}

func (r *replies) send(msg []byte) error {
	var m map[string]any
	if err := json.Unmarshal(msg, &m); err != nil {
		r.t.Errorf("server sent invalid JSON %q: %v", msg, err)
		return nil
	}
	if bytes.Contains(msg, []byte("\n")) {
		r.t.Errorf("a frame holds a raw newline: %q", msg)
	}
	r.mu.Lock()
	r.all = append(r.all, m)
	if id, ok := m["id"]; ok {
		key, _ := json.Marshal(id)
		r.byID[string(key)] = append(r.byID[string(key)], m)
		if len(r.byID[string(key)]) > 1 && id != nil && !r.allowDup {
			r.t.Errorf("request %s answered twice", key)
		}
	}
	r.mu.Unlock()
	r.got <- struct{}{}
	return nil
}

func (r *replies) wait(id string) map[string]any {
	r.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		got := r.byID[id]
		r.mu.Unlock()
		if len(got) > 0 {
			return got[0]
		}
		select {
		case <-r.got:
		case <-deadline:
			r.t.Fatalf("request %s never answered", id)
		}
	}
}

func code(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	return int(e["code"].(float64))
}

func testServer(t *testing.T) (*Server, *replies) {
	r := newReplies(t)
	h := HandlerFunc(func(req *Request) Answer {
		switch req.Method {
		case "echo":
			return Answer{Result: req.Params}
		case "block":
			return Answer{Job: func(ctx context.Context) (any, error) {
				<-ctx.Done()
				return "finished anyway", nil
			}}
		case "quick":
			return Answer{Quick: true, Job: func(context.Context) (any, error) { return "quick", nil }}
		case "quick-block":
			// Quick only for the test: a job that waits for its context,
			// to show a cancel reaches a job its caller runs.
			return Answer{Quick: true, Job: func(ctx context.Context) (any, error) {
				<-ctx.Done()
				return "finished anyway", nil
			}}
		case "panic":
			return Answer{Job: func(context.Context) (any, error) { panic("boom") }}
		case "panic-inline":
			panic("boom inline")
		case "fail":
			return Answer{Err: Errorf(CodeInvalidParams, "bad %s", "thing")}
		case "plain-error":
			return Answer{Job: func(context.Context) (any, error) { return nil, errors.New("disk on fire") }}
		}
		return Answer{Err: Errorf(CodeMethodNotFound, "method not found: %q", req.Method)}
	})
	s := NewServer(h, r.send)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.CancelAll()
		if err := s.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s, r
}

func TestServerRepliesOnceEach(t *testing.T) {
	s, r := testServer(t)
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"x":1}}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":2,"method":"panic"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":3,"method":"panic-inline"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":4,"method":"fail"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":5,"method":"plain-error"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":6,"method":"nope"}`))
	s.Deliver([]byte(`not json`))
	if got := r.wait("1")["result"].(map[string]any)["x"]; got != 1.0 {
		t.Errorf("echo: %v", got)
	}
	for id, want := range map[string]int{"2": CodeInternalError, "3": CodeInternalError, "4": CodeInvalidParams, "5": CodeInternalError, "6": CodeMethodNotFound} {
		if got := code(r.wait(id)); got != want {
			t.Errorf("request %s: code %d, want %d", id, got, want)
		}
	}
	if got := code(r.wait("null")); got != CodeParseError {
		t.Errorf("garbage: code %d, want parse error", got)
	}
	// The server still serves after all that.
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":7,"method":"echo","params":{}}`))
	if code(r.wait("7")) != 0 {
		t.Error("server stopped serving after panics")
	}
}

func TestServerCancelAnswersCancelled(t *testing.T) {
	s, r := testServer(t)
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":"c1","method":"block"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c1"}}`))
	// The job returned a result after cancellation; the client must still
	// see the cancelled code, never the result it gave up on.
	if got := code(r.wait(`"c1"`)); got != CodeRequestCancelled {
		t.Fatalf("code %d, want %d", got, CodeRequestCancelled)
	}
	// A cancel for an unknown or finished id is ignored without a reply.
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"zz"}}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":[]}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":9,"method":"echo","params":{}}`))
	r.wait("9")
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.all) != 2 {
		t.Fatalf("cancel notifications must not be answered; got %d messages", len(r.all))
	}
}

func TestServerRejectsDuplicateInflightID(t *testing.T) {
	s, r := testServer(t)
	r.allowDup = true
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":5,"method":"block"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":5,"method":"echo","params":{}}`))
	if got := code(r.wait("5")); got != CodeInvalidRequest {
		t.Fatalf("duplicate id: code %d", got)
	}
	s.CancelAll()
}

func TestServerAfterCloseRefuses(t *testing.T) {
	s, r := testServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`))
	if got := code(r.wait("1")); got != CodeShutDown {
		t.Fatalf("code %d, want %d", got, CodeShutDown)
	}
}

// A ping proves the client is alive (issue 15): never answered as a
// notification, answered {} as a request, and taken even after Close, when
// every other method is refused.
func TestServerPing(t *testing.T) {
	s, r := testServer(t)
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":"b","method":"block"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/ping"}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/ping","params":{"any":"thing"}}`))
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":1,"method":"$/ping"}`))
	if msg := r.wait("1"); code(msg) != 0 || len(msg["result"].(map[string]any)) != 0 {
		t.Fatalf("ping request: %v", msg)
	}
	s.CancelAll()
	r.wait(`"b"`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":2,"method":"$/ping"}`))
	if msg := r.wait("2"); code(msg) != 0 {
		t.Fatalf("ping after close: %v", msg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.all) != 3 {
		t.Fatalf("ping notifications must not be answered; got %d messages", len(r.all))
	}
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash"}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[{"jsonrpc":"2.0"}]`, `{"id":null}`, "\x00", `{"jsonrpc":"2.0","id":1e999,"method":"m"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		req, rpcErr := Decode(msg)
		if rpcErr == nil {
			if req == nil || req.Method == "" {
				t.Fatalf("valid decode without a method: %q", msg)
			}
			if len(req.Params) > 0 && req.Params[0] != '{' && string(req.Params) != "null" {
				t.Fatalf("non-object params accepted: %q", msg)
			}
		}
		// Whatever came in, the reply must encode to one valid JSON line.
		var id ID
		if req != nil {
			id = req.ID
		}
		out, err := EncodeResponse(id, nil, rpcErr)
		if rpcErr != nil && (err != nil || !json.Valid(out) || bytes.ContainsRune(out, '\n')) {
			t.Fatalf("bad error reply for %q: %q %v", msg, out, err)
		}
	})
}

// TestPooledWorkersRunEveryJob drives more concurrent jobs than the pool
// keeps idle, then more rounds on the reused workers, and a close racing
// with new deliveries: every request gets exactly one reply (issue 16).
// Delivered by DeliverThenWait, idle workers wait on bells, which every
// worker closes when it ends: after Close, none is left open.
func TestPooledWorkersRunEveryJob(t *testing.T) {
	for _, c := range []struct {
		name    string
		deliver func(*Server, []byte)
	}{
		{"Deliver", (*Server).Deliver},
		{"DeliverThenWait", func(s *Server, msg []byte) { s.DeliverThenWait(msg, false) }},
		{"DeliverThenWaitMore", func(s *Server, msg []byte) { s.DeliverThenWait(msg, true) }},
	} {
		t.Run(c.name, func(t *testing.T) { testPooledWorkers(t, c.deliver) })
	}
}

func testPooledWorkers(t *testing.T, deliverWith func(*Server, []byte)) {
	goroutinesBefore, bellsBefore := runtime.NumGoroutine(), openBells()
	var mu sync.Mutex
	replies := map[string]int{}
	send := func(msg []byte) error {
		var r struct{ ID json.RawMessage }
		if err := json.Unmarshal(msg, &r); err != nil {
			t.Errorf("bad reply %s", msg)
		}
		mu.Lock()
		replies[string(r.ID)]++
		mu.Unlock()
		return nil
	}
	release := make(chan struct{})
	s := NewServer(HandlerFunc(func(req *Request) Answer {
		return Answer{Job: func(ctx context.Context) (any, error) {
			if req.Method == "block" {
				<-release
			}
			return "ok", nil
		}}
	}), send)
	const wide = 3 * maxIdleWorkers
	id := 0
	deliver := func(method string) {
		id++
		deliverWith(s, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"`+method+`"}`))
	}
	for i := 0; i < wide; i++ {
		deliver("block")
	}
	close(release)
	for i := 0; i < 5*wide; i++ {
		deliver("quick")
	}
	go func() {
		for i := 0; i < 100; i++ {
			deliver("quick")
		}
	}()
	time.Sleep(time.Millisecond) // let some deliveries race the close
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second) // a hang guard, not a speed bound
	for {
		mu.Lock()
		n := len(replies)
		mu.Unlock()
		if n == 6*wide+100 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(replies) != 6*wide+100 {
		t.Fatalf("%d requests answered, want %d", len(replies), 6*wide+100)
	}
	for id, n := range replies {
		if n != 1 {
			t.Fatalf("request %s answered %d times", id, n)
		}
	}
	// Idle workers end after Close (woken from their bells, if they wait on
	// one), and close their bells as they go.
	for (runtime.NumGoroutine() > goroutinesBefore || openBells() > bellsBefore) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutinesBefore {
		t.Fatalf("%d goroutines after Close, %d before: idle workers did not end", n, goroutinesBefore)
	}
	if n := openBells(); n > bellsBefore {
		t.Fatalf("%d worker bells still open after Close (%d before)", n, bellsBefore)
	}
}

// openBells counts this process's open eventfds (on Linux, a bell is one).
func openBells() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0 // not Linux: no bells
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == "anon_inode:[eventfd]" {
			n++
		}
	}
	return n
}

// DeliverInline (issue 16) hands a Quick job to its caller instead of a
// worker: nothing runs and nothing is answered until the caller runs it,
// and the reply then goes to the delivery's own sink. A job that is not
// Quick, and a Quick one delivered by Deliver, still run on a worker.
func TestDeliverInlineHandsQuickJobsToTheCaller(t *testing.T) {
	s, r := testServer(t)
	mine := newReplies(t)
	replies, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":1,"method":"quick"}`), mine.send)
	if !replies || run == nil {
		t.Fatalf("a quick job: replies %v, run %v", replies, run != nil)
	}
	mine.mu.Lock()
	early := len(mine.all)
	mine.mu.Unlock()
	if early != 0 {
		t.Fatal("a quick job was answered before its caller ran it")
	}
	run()
	if got := mine.wait("1")["result"]; got != "quick" {
		t.Fatalf("result %v", got)
	}
	if replies, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}`), mine.send); !replies || run != nil {
		t.Fatalf("an in-line answer: replies %v, run %v", replies, run != nil)
	}
	mine.wait("2")
	if replies, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":3,"method":"block"}`), mine.send); !replies || run != nil {
		t.Fatalf("a job that is not quick must go to a worker: replies %v, run %v", replies, run != nil)
	}
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`))
	if code(mine.wait("3")) != CodeRequestCancelled {
		t.Fatal("the worker's job was not cancelled")
	}
	if replies, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","method":"quick"}`), mine.send); replies || run == nil {
		t.Fatalf("a quick notification: replies %v, run %v", replies, run != nil)
	} else {
		run() // runs, and answers nothing
	}
	s.Deliver([]byte(`{"jsonrpc":"2.0","id":4,"method":"quick"}`))
	if got := r.wait("4")["result"]; got != "quick" {
		t.Fatalf("a quick job delivered by Deliver: %v", got)
	}
}

// A job its caller runs is cancelled from another goroutine like any other
// (a client's $/cancelRequest, Close): it is in the in-flight set from its
// delivery on, and its context is the one cancel ends.
func TestDeliverInlineJobIsCancellable(t *testing.T) {
	s, _ := testServer(t)
	mine := newReplies(t)
	_, run := s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":"q","method":"quick-block"}`), mine.send)
	if run == nil {
		t.Fatal("no job to run")
	}
	ran := make(chan struct{})
	go func() { run(); close(ran) }()
	s.Deliver([]byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"q"}}`))
	if got := code(mine.wait(`"q"`)); got != CodeRequestCancelled {
		t.Fatalf("code %d, want %d", got, CodeRequestCancelled)
	}
	<-ran
	_, run = s.DeliverInline([]byte(`{"jsonrpc":"2.0","id":"r","method":"quick-block"}`), mine.send)
	go run()
	s.CancelAll()
	if got := code(mine.wait(`"r"`)); got != CodeRequestCancelled {
		t.Fatalf("after CancelAll: code %d, want %d", got, CodeRequestCancelled)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatalf("close waits for jobs run by callers too: %v", err)
	}
}

// EncodeResponse writes its members by hand around the marshalled result
// (issue 16); the bytes must stay those encoding/json gives the reply's
// struct, with the id as the request spelt it.
func TestEncodeResponseMatchesEncodingJSON(t *testing.T) {
	hostile := "a<b>&c\u2028\u2029\x00\x1f\"\\ \xff\xfe é 😀"
	results := []any{
		nil,
		struct{}{},
		map[string]any{"text": hostile, "n": 1.5, "list": []any{nil, true, hostile}},
		json.RawMessage(" { \"a\" : [1, 2] } "),
		(*struct{ A int })(nil),
		struct {
			Text string `json:"text"`
			Skip string `json:"skip,omitempty"`
		}{Text: hostile},
	}
	errs := []*Error{nil, {Code: CodeInvalidParams, Message: hostile, Data: map[string]any{"k": hostile}}}
	for _, id := range []ID{nil, ID(`7`), ID(`"a\u003cb"`), ID(`"a<b"`), ID(`1e1`)} {
		for _, result := range results {
			for _, rpcErr := range errs {
				if result != nil && rpcErr != nil {
					continue // a reply is one or the other
				}
				got, err := EncodeResponse(id, result, rpcErr)
				if err != nil {
					t.Fatal(err)
				}
				want := wireResponse{Result: result, Error: rpcErr}
				if want.Result == nil && rpcErr == nil {
					want.Result = struct{}{}
				}
				b, err := json.Marshal(want)
				if err != nil {
					t.Fatal(err)
				}
				if len(id) > 0 {
					b = bytes.Replace(b, []byte(`"id":null`), append([]byte(`"id":`), id...), 1)
				}
				if !bytes.Equal(got, b) {
					t.Errorf("id %s, result %#v, error %v:\n got %s\nwant %s", id, result, rpcErr, got, b)
				}
			}
		}
	}
	if _, err := EncodeResponse(ID(`1`), map[string]any{"f": func() {}}, nil); err == nil {
		t.Error("a result that cannot be marshalled must be an error")
	}
}

// BenchmarkDecodeEncode is the envelope's share of a call: a tools/call
// request decoded and a typical result encoded (issue 16).
func BenchmarkDecodeEncode(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"session":"a","name":"str_replace_editor","arguments":{"command":"view","path":"/tmp/tiny.txt"}}}`)
	result := map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": "Here's the result of running `cat -n` on /tmp/tiny.txt:\n     1\ta\n"}},
		"isError":           false,
		"structuredContent": map[string]any{"path": "/tmp/tiny.txt", "lines": 1},
	}
	b.ReportAllocs()
	for b.Loop() {
		req, rpcErr := Decode(msg)
		if rpcErr != nil {
			b.Fatal(rpcErr)
		}
		if _, err := EncodeResponse(req.ID, result, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Issue 16: what the one-pass envelope reader takes, json.Unmarshal reads
// the same way, so Decode's answers do not depend on which path read it.
func FuzzDecodePlainMatches(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash"}}`,
		`{"jsonrpc":"2.0","id":"a\u003cb","method":"m"}`, `{"jsonrpc":"2.0","id":null,"method":null,"params":null}`,
		`{"jsonrpc":"2.0","ID":1,"method":"m"}`, `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
		`{"jsonrpc":"2.0","method":"m\u0041"}`, "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.00","method":"m"}`, ` {"method":"m"} `,
		`{"jsonrpc":"2.0","id":[1],"method":"m"}`, `{"jsonrpc":"2.0","method":"m","params":[1,2]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		plain, ok := decodePlain(msg)
		if !ok {
			return
		}
		var in wireIn
		if err := json.Unmarshal(msg, &in); err != nil {
			t.Fatalf("took %q, which json.Unmarshal refuses: %v", msg, err)
		}
		if !reflect.DeepEqual(plain, in) {
			t.Fatalf("%q read differently:\nplain %+v\njson  %+v", msg, plain, in)
		}
	})
}
