package rpc

import (
	"context"
	"testing"
)

// BenchmarkServerJob is the server's share of a call that runs as a job:
// the request delivered, the job started on a pooled worker, its reply
// sent, with a result that costs nothing to make (issue 16). A reply is
// awaited before the next request, as a client calling one at a time
// does.
func BenchmarkServerJob(b *testing.B) {
	for _, c := range []struct {
		name    string
		deliver func(*Server, []byte)
	}{
		{"Deliver", (*Server).Deliver},
		{"DeliverThenWait", func(s *Server, msg []byte) { s.DeliverThenWait(msg, false) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			replied := make(chan struct{}, 1)
			h := HandlerFunc(func(*Request) Answer {
				return Answer{Job: func(context.Context) (any, error) { return struct{}{}, nil }}
			})
			s := NewServer(h, func([]byte) error { replied <- struct{}{}; return nil })
			defer s.Close(context.Background())
			msg := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{}}`)
			c.deliver(s, msg)
			<-replied
			b.ReportAllocs()
			for b.Loop() {
				c.deliver(s, msg)
				<-replied
			}
		})
	}
}
