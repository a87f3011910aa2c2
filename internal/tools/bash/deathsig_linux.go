//go:build linux

package bash

import "syscall"

// setParentDeath has the kernel kill the command's shell if the runtime
// dies without closing it (SIGKILL of the executable, a crash of the host).
// The signal follows the OS thread that started the child, not the process:
// commands start on the runtime's own goroutines, never on a thread of the
// host that called in through the C ABI, and Go keeps its threads for the
// life of the process, so the signal means the runtime is gone.
func setParentDeath(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
