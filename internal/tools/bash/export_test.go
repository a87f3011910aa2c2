package bash

import (
	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/tools"
)

// WithSpares makes the executor of ts (from New) keep a spare supervisor,
// as it does on Linux, for tests and benchmarks that compare both ways.
func WithSpares(ts []tools.Tool) {
	e := ts[0].(*bashTool).e
	if e.spares == nil {
		e.spares = spawnhelper.NewSpares(e.set.spawnHelper)
	}
}

// WithoutSpares makes the executor of ts (from New) exec a supervisor for
// every command, for benchmarks that compare both ways.
func WithoutSpares(ts []tools.Tool) {
	e := ts[0].(*bashTool).e
	e.spares.Close()
	e.spares = nil
}
