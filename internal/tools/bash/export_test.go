package bash

import (
	"github.com/shellport/shellport/internal/spawnhelper"
	"github.com/shellport/shellport/internal/tools"
)

// WithSpares makes the executor of ts (from New) keep a spare supervisor,
// as it does in the shellport executable, for tests and benchmarks that
// compare both ways.
func WithSpares(ts []tools.Tool) {
	e := ts[0].(*bashTool).e
	if e.spares == nil {
		e.spares = spawnhelper.NewSpares(e.set.spawnHelper)
	}
}
