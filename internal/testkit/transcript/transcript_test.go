package transcript

import (
	"strings"
	"testing"
	"time"
)

// scripted is a carrier that answers each sent request with canned
// messages, including a reply to EndProbe.
type scripted struct {
	answers map[string][]string // sent message prefix → messages to queue
	queue   []string
}

func (s *scripted) Send(msg []byte) error {
	for prefix, out := range s.answers {
		if strings.HasPrefix(string(msg), prefix) {
			s.queue = append(s.queue, out...)
		}
	}
	if string(msg) == EndProbe {
		s.queue = append(s.queue, `{"jsonrpc":"2.0","id":"transcript-end","result":{}}`)
	}
	return nil
}

func (s *scripted) Recv(time.Duration) ([]byte, error) {
	if len(s.queue) == 0 {
		return nil, nil
	}
	m := s.queue[0]
	s.queue = s.queue[1:]
	return []byte(m), nil
}

func steps(t *testing.T, lines ...string) []Step {
	t.Helper()
	var out []Step
	for i, l := range lines {
		if strings.HasPrefix(l, "send ") {
			out = append(out, Step{Line: i + 1, Send: []byte(strings.TrimPrefix(l, "send "))})
		} else {
			out = append(out, Step{Line: i + 1, Expect: []byte(strings.TrimPrefix(l, "expect "))})
		}
	}
	return out
}

// Issue 18: the runners ignored extra and duplicate replies.
func TestRunFailsOnDuplicateAndExtraReplies(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"m"}`
	for name, c := range map[string]struct {
		answers []string
		want    string
	}{
		"exact":          {[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`}, ""},
		"duplicate":      {[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`}, "answered twice"},
		"extra":          {[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`}, "no expect line asked for"},
		"extra null id":  {[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`}, "no expect line asked for"},
		"notice is fine": {[]string{`{"jsonrpc":"2.0","method":"session/notice","params":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			carrier := &scripted{answers: map[string][]string{req: c.answers}}
			err := Run(carrier, steps(t, "send "+req, `expect {"id":1,"result":{}}`), time.Second)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected failure: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("want a failure saying %q, got %v", c.want, err)
			}
		})
	}
}
