//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights, grouped as the rules use them.
const (
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llWrite is what a writable root allows beyond reading: everything
	// but making device nodes (a block device in a writable root would be
	// the whole disk).
	llWrite = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_REFER |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// llDevice is what the terminal and /dev/null allow: read, write,
	// truncate (a shell's > opens with O_TRUNC) and device ioctls.
	llDevice = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// llFileOnly are the rights a rule on a file (not a directory) may
	// hold.
	llFileOnly = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// llPrivate is what the persistent shell needs in its private
	// directory: opening its control FIFOs, which the runtime made.
	llPrivate = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE
)

// handledFS is every file-system right the kernel's ABI knows: all of them
// are handled, so whatever no rule grants is denied.
func handledFS(abi int) uint64 {
	h := uint64(0x1fff) // ABI 1: EXECUTE … MAKE_SYM
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// grant is one Landlock rule: access beneath path.
type grant struct {
	path     string
	access   uint64
	optional bool // skipped when the path does not exist
}

// devices are what every restricted mode lets commands write: the
// terminal and /dev/null.
var devices = []string{"/dev/null", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// grants are the rules of the policy: read and execute everywhere, the
// devices, the writable set, and private (the persistent shell's private
// directory, whose FIFOs it opens).
func (p *Policy) grants(private []string) []grant {
	g := []grant{{path: "/", access: llRead}}
	for _, d := range devices {
		g = append(g, grant{path: d, access: llDevice, optional: true})
	}
	for _, w := range p.writable {
		g = append(g, grant{path: w, access: llRead | llWrite})
	}
	for _, d := range private {
		g = append(g, grant{path: d, access: llPrivate})
	}
	return g
}

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field (ABI
// 6). Older kernels accept the larger size since the fields they do not
// know are zero.
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// buildRuleset creates a Landlock ruleset handling every file-system right
// of abi (and the given scopes) with the grants as its rules.
func buildRuleset(abi int, scoped uint64, grants []grant) (_ *os.File, err error) {
	handled := handledFS(abi)
	attr := rulesetAttr{handledFS: handled, scoped: scoped}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return nil, fmt.Errorf("sandbox: create a Landlock ruleset: %w", errno)
	}
	rs := os.NewFile(fd, "landlock-ruleset")
	defer func() {
		if err != nil {
			_ = rs.Close() // best effort: already failing
		}
	}()
	for _, g := range grants {
		if err := addRule(rs, handled, g); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

func addRule(rs *os.File, handled uint64, g grant) error {
	fd, err := unix.Open(g.path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if g.optional && errors.Is(err, unix.ENOENT) {
			return nil
		}
		return fmt.Errorf("sandbox: %s: %w", g.path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox: %s: %w", g.path, err)
	}
	access := g.access & handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileOnly
	}
	if access == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, rs.Fd(), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("sandbox: add a Landlock rule for %s: %w", g.path, errno)
	}
	return nil
}

// restrictThread restricts the calling OS thread, and only it, with the
// ruleset: no_new_privs first (which Landlock requires of an unprivileged
// caller, and which is per thread too), then landlock_restrict_self
// without LANDLOCK_RESTRICT_SELF_TSYNC. The caller must have locked its
// goroutine to the thread and never unlock it.
func restrictThread(rs *os.File) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rs.Fd(), 0, 0); errno != 0 {
		return fmt.Errorf("sandbox: restrict a thread with Landlock: %w", errno)
	}
	return nil
}

// landlockABI is the kernel's Landlock ABI version, or 0 with the reason.
func landlockABI() (int, string) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, "this kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK, or older than Linux 5.13)"
	case errno == unix.EOPNOTSUPP:
		return 0, "Landlock is disabled in this kernel (it is not in the lsm= boot parameter)"
	case errno != 0:
		return 0, "Landlock cannot be queried: " + errno.Error()
	}
	return int(v), ""
}
