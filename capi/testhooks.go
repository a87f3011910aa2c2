//go:build shellport_capitest

// Test-only exports, compiled only into the library capi/abi_test.go builds
// (go build -tags shellport_capitest); the shipped library and its header
// do not have them.

package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"runtime/coverage"
	"sync/atomic"
)

var panicsArmed atomic.Int32

func init() {
	testOnlyEnter = func() {
		if panicsArmed.Load() > 0 && panicsArmed.Add(-1) >= 0 {
			panic("test-only panic armed by shellport_testonly_panic_next")
		}
	}
}

// shellport_testonly_panic_next makes the next n exported calls panic inside
// the library, so the test sees each recovery path answer.
//
//export shellport_testonly_panic_next
func shellport_testonly_panic_next(n C.int) { panicsArmed.Store(int32(n)) }

// shellport_testonly_park_in_scheduler makes the connections opened after
// it park their waiting callers in the Go scheduler, not in the kernel, so
// that BenchmarkABIPersistentTrue can set the two side by side.
//
//export shellport_testonly_park_in_scheduler
func shellport_testonly_park_in_scheduler() { parkWaitersInKernel.Store(false) }

// shellport_testonly_write_coverage writes the coverage counters of a
// library built with -cover to dir (a c-shared library never runs Go's exit
// hooks, which write them for a program). Returns 0, or -1.
//
//export shellport_testonly_write_coverage
func shellport_testonly_write_coverage(dir *C.char) C.int {
	if err := coverage.WriteCountersDir(C.GoString(dir)); err != nil {
		return -1
	}
	return 0
}
