package patch

import (
	"os"

	"golang.org/x/sys/unix"
)

func ioctlGetFlags(f *os.File) (int, error) {
	return unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
}

func ioctlSetFlags(f *os.File, attr int) error {
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, attr)
}
