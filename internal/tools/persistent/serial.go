package persistent

import "github.com/shellport/shellport/internal/tools"

var _ tools.Serial = (*Tool)(nil)

// SerialPerSession asks the runtime to queue this tool's calls per session
// in the order the client sent them. The tool's own per-session lock keeps
// calls from overlapping; only the runtime, which sees requests arrive, can
// keep their order.
func (t *Tool) SerialPerSession() {}
