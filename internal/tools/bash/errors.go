package bash

import "errors"

// ErrClosed is returned for calls that would start a process after Close.
var ErrClosed = errors.New("bash: the tool has been closed")
