//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// seccompArch is the audit architecture the program accepts (32-bit ARM
// programs have another, and are killed).
const seccompArch = unix.AUDIT_ARCH_AARCH64

// foreignNrFloor: arm64 has no second numbering within its architecture.
const foreignNrFloor = 0

// deniedSyscalls fail with EPERM in every restricted mode (see
// seccomp_linux.go).
var deniedSyscalls = []uint32{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_REBOOT,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_ACCT, unix.SYS_QUOTACTL,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN,
}
