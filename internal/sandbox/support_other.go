//go:build !linux && !darwin

package sandbox

import "runtime"

func probeSystem() Support {
	return Support{Backend: BackendNone, Files: "none", Reason: "shellport has no sandbox backend for " + runtime.GOOS}
}
