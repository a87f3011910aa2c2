//go:build !linux

package inproc

import (
	"sync/atomic"
	"time"
)

// canParkInKernel says whether park and wakeParked work here: only Linux
// has the futex they need, so a Wait elsewhere waits in the scheduler.
const canParkInKernel = false

func park(*atomic.Uint32, time.Duration) {}

func wakeParked(*atomic.Uint32) {}
