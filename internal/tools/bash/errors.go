package bash

import "errors"

// ErrClosed is returned for calls that would start a process after Close,
// and by a call Close cut short.
var ErrClosed = errors.New("bash: the tool has been closed")

// ErrSessionClosed is returned by a call its session's close cut short.
var ErrSessionClosed = errors.New("bash: the session was closed")
