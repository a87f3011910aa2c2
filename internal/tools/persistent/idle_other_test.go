//go:build !linux

package persistent

import (
	"runtime"
	"testing"
)

func waitIdle(t *testing.T, _ *shell) {
	t.Skipf("no /proc/PID/syscall on %s/%s", runtime.GOOS, runtime.GOARCH)
}
