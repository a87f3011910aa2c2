//go:build unix

package persistent

import (
	"fmt"

	"golang.org/x/sys/unix"
)

func mkfifo(path string) error {
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return fmt.Errorf("persistent: make FIFO %q: %w", path, err)
	}
	return nil
}
