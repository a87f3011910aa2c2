//go:build unix && !linux

package bash

import "syscall"

// setParentDeath does nothing here: only Linux has a parent-death signal.
// Close and CloseSession still kill every process group the tool started.
func setParentDeath(*syscall.SysProcAttr) {}
