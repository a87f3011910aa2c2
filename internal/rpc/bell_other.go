//go:build !linux

package rpc

// bell is Linux's eventfd wake-up of an idle worker (bell_linux.go);
// elsewhere newBell returns nil and workers wait on their channels.
type bell struct{}

func newBell() *bell { return nil }

func (*bell) ring()            {}
func (*bell) wait(func() bool) {}
func (*bell) close()           {}
