//go:build linux || darwin

package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// copyXattrs makes dst's extended attributes (ACLs and security labels
// among them) those of src. It fails when one cannot be set or removed,
// which the caller takes as a reason to write in place instead.
func copyXattrs(src, dst *os.File) error {
	want, err := xattrs(src)
	if err != nil {
		if errors.Is(err, unix.ENOTSUP) {
			return nil // the file system has none
		}
		return fmt.Errorf("list extended attributes: %w", err)
	}
	have, err := xattrs(dst)
	if err != nil && !errors.Is(err, unix.ENOTSUP) {
		return fmt.Errorf("list extended attributes: %w", err)
	}
	for name, v := range want {
		if cur, ok := have[name]; ok && bytes.Equal(cur, v) {
			continue
		}
		if err := unix.Fsetxattr(int(dst.Fd()), name, v, 0); err != nil {
			return fmt.Errorf("copy extended attribute %s: %w", name, err)
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			if err := unix.Fremovexattr(int(dst.Fd()), name); err != nil {
				return fmt.Errorf("drop extended attribute %s: %w", name, err)
			}
		}
	}
	return nil
}

// xattrs reads every extended attribute of f that this process may see.
func xattrs(f *os.File) (map[string][]byte, error) {
	fd := int(f.Fd())
	size, err := unix.Flistxattr(fd, nil)
	if err != nil || size == 0 {
		return nil, err
	}
	buf := make([]byte, size)
	if size, err = unix.Flistxattr(fd, buf); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, name := range strings.Split(strings.TrimRight(string(buf[:size]), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		n, err := unix.Fgetxattr(fd, name, nil)
		if err != nil {
			return nil, err
		}
		v := make([]byte, n)
		if n, err = unix.Fgetxattr(fd, name, v); err != nil {
			return nil, err
		}
		out[name] = v[:n]
	}
	return out, nil
}
