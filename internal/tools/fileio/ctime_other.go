//go:build unix && !linux && !darwin

package fileio

import (
	"syscall"
	"time"
)

// statCtime is unknown here; the checks before a write then rest on the
// file's identity, size, modification time and content.
func statCtime(*syscall.Stat_t) time.Time { return time.Time{} }
