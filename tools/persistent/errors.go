package persistent

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by calls made after the tool was closed.
var ErrClosed = errors.New("persistent: the tool has been closed")

// ErrSessionClosed is returned by a call whose session was closed while it
// waited or ran.
var ErrSessionClosed = errors.New("persistent: the session was closed")

// UnsupportedError reports an operation this platform cannot perform.
type UnsupportedError struct {
	Op     string
	GOOS   string
	GOARCH string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("persistent: %s is not supported on %s/%s", e.Op, e.GOOS, e.GOARCH)
}
