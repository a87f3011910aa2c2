//go:build !linux

package bash

import (
	"fmt"
	"os"
)

// scriptFile returns the command, NUL-terminated, in an unlinked temporary
// file in dir positioned at its start (bash reads a seekable file in large
// blocks).
func scriptFile(command, dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "bash-command-")
	if err != nil {
		return nil, fmt.Errorf("create command file: %w", err)
	}
	_ = os.Remove(f.Name()) // best effort: the open descriptor is enough
	if err := writeScript(f, command); err != nil {
		_ = f.Close() // best effort
		return nil, err
	}
	return f, nil
}
