//go:build !linux

package sandbox

// workers exist on Linux only: elsewhere no thread can be restricted on
// its own.
type workers struct{}

func (*workers) close() {}

// Run runs fn on the calling goroutine: without a per-thread restriction
// here, the file tools are held to a policy by PathPolicy's checks of
// every path, as named and with links resolved (Support.Files says
// "path-checks").
func (p *Policy) Run(fn func()) error {
	fn()
	return nil
}
