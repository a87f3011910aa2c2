package bash

import (
	"errors"
	"fmt"
)

// ErrClosed is returned for calls that would start a process after Close.
var ErrClosed = errors.New("bash: the tool has been closed")

// UnsupportedError reports an operation this platform cannot perform.
type UnsupportedError struct {
	Op     string
	GOOS   string
	GOARCH string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("bash: %s is not supported on %s/%s", e.Op, e.GOOS, e.GOARCH)
}
