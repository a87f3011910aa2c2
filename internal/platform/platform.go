// Package platform holds what every OS-specific part of shellport reports
// the same way: an operation the running platform cannot perform.
package platform

import (
	"fmt"
	"runtime"
)

// UnsupportedError reports an operation this platform cannot perform. Op
// names it for people ("starting a program on a terminal").
type UnsupportedError struct {
	Op     string
	GOOS   string
	GOARCH string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s is not supported on %s/%s", e.Op, e.GOOS, e.GOARCH)
}

// Unsupported returns an *UnsupportedError for op on the running platform.
func Unsupported(op string) error {
	return &UnsupportedError{Op: op, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
}
