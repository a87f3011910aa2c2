package persistent

import "errors"

// ErrClosed is returned by calls made after the tool was closed.
var ErrClosed = errors.New("persistent: the tool has been closed")

// ErrSessionClosed is returned by a call whose session was closed while it
// waited or ran.
var ErrSessionClosed = errors.New("persistent: the session was closed")
