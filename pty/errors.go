package pty

import "fmt"

// UnsupportedError reports an operation this platform cannot perform.
type UnsupportedError struct {
	Op     string
	GOOS   string
	GOARCH string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("pty: %s is not supported on %s/%s", e.Op, e.GOOS, e.GOARCH)
}
