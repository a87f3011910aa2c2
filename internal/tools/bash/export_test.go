package bash

import "github.com/shellport/shellport/internal/tools"

// WithoutSpares makes the executor of ts (from New) exec a supervisor for
// every command instead of keeping a spare, for benchmarks that compare
// both ways.
func WithoutSpares(ts []tools.Tool) {
	e := ts[0].(*bashTool).e
	e.spares.Close()
	e.spares = nil
}
