//go:build linux

package persistent

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// waitIdle waits until the shell is blocked reading its control FIFO: the
// loop is waiting for the next command.
func waitIdle(t *testing.T, sh *shell) {
	t.Helper()
	path := "/proc/" + strconv.Itoa(sh.proc.Pid()) + "/syscall"
	eventually(t, "shell waiting for a command", func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("cannot read %s: %v", path, err)
		}
		f := strings.Fields(string(b))
		return len(f) > 1 && f[0] == strconv.Itoa(unix.SYS_READ) && f[1] == "0x"+strconv.FormatInt(fdCtl, 16)
	})
}
