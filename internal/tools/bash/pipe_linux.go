//go:build linux

package bash

import (
	"fmt"
	"os"
	"syscall"
)

// pipe returns a pipe whose read end is pollable (it supports deadlines)
// and whose write end, which only the child uses, stays out of the poller:
// registering and unregistering it is measurable per call.
func pipe() (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, fmt.Errorf("pipe2: %w", err)
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		_ = syscall.Close(p[0]) // best effort
		_ = syscall.Close(p[1]) // best effort
		return nil, nil, fmt.Errorf("set pipe non-blocking: %w", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
