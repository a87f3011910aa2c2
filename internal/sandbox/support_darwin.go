//go:build darwin

package sandbox

import "os"

func probeSystem() Support {
	if fi, err := os.Stat(SandboxExec); err != nil || fi.Mode()&0o111 == 0 {
		return Support{Backend: BackendNone, Files: "none", Reason: SandboxExec + " is missing"}
	}
	return Support{Backend: BackendSeatbelt, Files: "path-checks"}
}
