//go:build !linux

package editor

import (
	"testing"
	"time"
)

// waitSettled lets the file age past the change-time margin; without the
// change time at hand it waits as long as a coarse file system needs.
func waitSettled(*testing.B, string) { time.Sleep(4 * time.Second) }

type cpuClock struct{}

func startCPU(*testing.B) cpuClock { return cpuClock{} }

func (cpuClock) report() {}
