//go:build linux

package bash

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// scriptFile returns the command, NUL-terminated, in a sealed memory file
// positioned at its start: bash reads a seekable file in large blocks, and
// the seals keep the text exactly what the runtime was given.
func scriptFile(command, _ string) (*os.File, error) {
	fd, err := unix.MemfdCreate("shellport-command", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("create command file: %w", err)
	}
	f := os.NewFile(uintptr(fd), "shellport-command")
	if err := writeScript(f, command); err != nil {
		_ = f.Close() // best effort
		return nil, err
	}
	const seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		_ = f.Close() // best effort
		return nil, fmt.Errorf("seal command file: %w", err)
	}
	return f, nil
}
