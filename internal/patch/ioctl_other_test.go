//go:build !linux

package patch

import (
	"errors"
	"os"
)

func ioctlGetFlags(*os.File) (int, error) { return 0, errors.New("file flags are Linux only") }

func ioctlSetFlags(*os.File, int) error { return errors.New("file flags are Linux only") }
