//go:build !linux

package bash

import "os"

// pipe returns a pipe whose read end supports deadlines where the platform
// allows.
func pipe() (r, w *os.File, err error) { return os.Pipe() }
