//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp program of a restricted mode, built here and applied by the
// spawn helper (after Landlock, just before exec). It allows every system
// call except:
//
//   - with network off, socket and socketpair for any family but AF_UNIX:
//     TCP (MPTCP too, which Landlock's TCP rules miss), UDP, IPv6, raw,
//     netlink… fail with EPERM;
//   - io_uring_setup, io_uring_enter and io_uring_register: a ring can
//     open sockets without the socket system call;
//   - the administration calls of denied (module loading, kexec, reboot,
//     the clock, open_by_handle_at…), which nothing a model runs needs and
//     which a command running as root could use to leave any sandbox;
//
// and it kills a process that makes system calls of another architecture
// (32-bit or x32 on x86-64), whose numbers the checks above would miss.

// seccomp_data offsets.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // low half on little-endian machines; see arg0Low
)

// arg0Low is the offset of the low 32 bits of the first argument.
func arg0Low() uint32 {
	var x uint16 = 1
	if *(*byte)(unsafe.Pointer(&x)) == 1 {
		return offArg0
	}
	return offArg0 + 4
}

// bpf is a tiny assembler for classic BPF with forward jumps to labels.
type bpf struct {
	ins    []unix.SockFilter
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at     int
	tl, fl string // "" keeps the offset as written
}

func (b *bpf) stmt(code uint16, k uint32) { b.ins = append(b.ins, unix.SockFilter{Code: code, K: k}) }

func (b *bpf) jump(code uint16, k uint32, tl, fl string) {
	b.fixups = append(b.fixups, fixup{at: len(b.ins), tl: tl, fl: fl})
	b.ins = append(b.ins, unix.SockFilter{Code: code, K: k})
}

func (b *bpf) label(name string) { b.labels[name] = len(b.ins) }

func (b *bpf) assemble() ([]unix.SockFilter, error) {
	for _, f := range b.fixups {
		for _, side := range []struct {
			name string
			dst  *uint8
		}{{f.tl, &b.ins[f.at].Jt}, {f.fl, &b.ins[f.at].Jf}} {
			if side.name == "" {
				continue
			}
			to, ok := b.labels[side.name]
			off := to - f.at - 1
			if !ok || off < 0 || off > 255 {
				return nil, fmt.Errorf("sandbox: seccomp program: bad jump to %q", side.name)
			}
			*side.dst = uint8(off)
		}
	}
	return b.ins, nil
}

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retDeny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retKill  = unix.SECCOMP_RET_KILL_PROCESS
)

// seccompProgram builds the program for a policy with or without network.
func seccompProgram(network bool) ([]unix.SockFilter, error) {
	if seccompArch == 0 {
		return nil, fmt.Errorf("sandbox: no seccomp program for this architecture")
	}
	b := &bpf{labels: map[string]int{}}
	ld := uint16(unix.BPF_LD | unix.BPF_W | unix.BPF_ABS)
	jeq := uint16(unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K)
	jge := uint16(unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K)
	ret := uint16(unix.BPF_RET | unix.BPF_K)

	b.stmt(ld, offArch)
	b.jump(jeq, seccompArch, "", "kill")
	b.stmt(ld, offNr)
	if foreignNrFloor != 0 {
		b.jump(jge, foreignNrFloor, "kill", "")
	}
	for _, nr := range deniedSyscalls {
		b.jump(jeq, nr, "deny", "")
	}
	if !network {
		b.jump(jeq, unix.SYS_SOCKET, "family", "")
		b.jump(jeq, unix.SYS_SOCKETPAIR, "family", "")
	}
	b.stmt(ret, retAllow)
	if !network {
		b.label("family")
		b.stmt(ld, arg0Low())
		b.jump(jeq, unix.AF_UNIX, "allow", "deny")
		b.label("allow")
		b.stmt(ret, retAllow)
	}
	b.label("deny")
	b.stmt(ret, retDeny)
	b.label("kill")
	b.stmt(ret, retKill)
	return b.assemble()
}

// seccompFile returns the program for a spawn, as the spawn helper reads
// it: struct sock_filter[] to end of file, in a pipe whose read end is
// returned.
func seccompFile(network bool) (*os.File, error) {
	prog, err := seccompProgram(network)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.NativeEndian, prog); err != nil {
		return nil, fmt.Errorf("sandbox: encode the seccomp program: %w", err)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("sandbox: seccomp pipe: %w", err)
	}
	r, w := os.NewFile(uintptr(p[0]), "|seccomp"), os.NewFile(uintptr(p[1]), "|seccomp")
	// A few hundred bytes: far below the pipe's buffer, so the write never
	// waits for the reader.
	_, err = w.Write(buf.Bytes())
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = r.Close() // best effort: already failing
		return nil, fmt.Errorf("sandbox: write the seccomp program: %w", err)
	}
	return r, nil
}

// seccompAvailable reports whether seccomp filters can be applied here.
func seccompAvailable() (bool, string) {
	if seccompArch == 0 {
		return false, "no seccomp program for this architecture"
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if errno != 0 {
		return false, "seccomp filters are not available: " + errno.Error()
	}
	return true, ""
}
