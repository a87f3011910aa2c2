//go:build !unix

package bash

import (
	"os"

	"github.com/shellport/shellport/internal/platform"
)

func killGroup(int, signal) error { return unsupported("signalling a process group") }

func exitOf(ps *os.ProcessState) exitInfo { return exitInfo{code: ps.ExitCode()} }

func unsupported(op string) error { return platform.Unsupported("bash: " + op) }
