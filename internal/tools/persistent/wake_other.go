//go:build !linux

package persistent

// newWaker returns nil: outside Linux a call waits on its channels alone.
func newWaker() *waker { return nil }
