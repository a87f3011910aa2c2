//go:build linux

package spawnhelper

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// spawner is the helper process that makes a pool's spares by forking
// itself (--spawner, cmd/shellport-spawn-helper/spawner.c). An exec costs
// the process that starts it in proportion to the descriptors it holds
// (the kernel copies the descriptor table, then closes each close-on-exec
// entry), about 0.2 µs per descriptor: with 2,048 live sessions a runtime
// holds some 10,000, and each spare it exec'd cost about 2 ms more than
// with none. The spawner is exec'd once, at the pool's first refill, and
// holds five descriptors, so a spare costs the same however many sessions
// are live. Each spare is this process's child (the spawner forks it with
// CLONE_PARENT) and runs the same code with the same descriptors as one
// exec'd with --spare, so [spare] does not know where it came from.
type spawner struct {
	proc *child
	sock int // this side of the request socket
}

// fdSpawner is the number the spawner gets its request socket at.
const fdSpawner = 4

// errSpawnerBroken: the spawner did not answer as it must (it died, was
// stopped, or sent what it cannot have); it is stopped and not used again.
var errSpawnerBroken = errors.New("spawn helper: the spawner stopped answering")

// startSpawner execs the spawner. Its standard descriptors are /dev/null,
// its environment empty, like a spare's.
func startSpawner(helper string) (*spawner, error) {
	// The spawner is the one helper given the life pipe: it has no report
	// pipe to learn the runtime's death from.
	life, err := lifeReadEnd()
	if err != nil {
		return nil, err
	}
	l, err := newHelperLink("spawner")
	if err != nil {
		return nil, err
	}
	defer l.theirs.Close()
	argv := []string{helper, "--spawner", strconv.Itoa(fdSpawner),
		"--life", strconv.Itoa(fdLife), "--parent", strconv.Itoa(os.Getpid())}
	proc, err := startChild(helper, argv, []string{}, []*os.File{l.null, l.null, l.null, life, l.theirs})
	if err != nil {
		_ = unix.Close(l.mine)
		return nil, fmt.Errorf("start spawn helper %s: %w", helper, err)
	}
	return &spawner{proc: proc, sock: l.mine}, nil
}

// spare asks for one spare. An error that wraps errSpawnerBroken means
// the spawner is unusable; any other is the spawner's failure to fork
// (out of processes or memory), which an exec would likely meet too.
func (s *spawner) spare() (*spare, error) {
	for {
		_, err := unix.Write(s.sock, []byte{1})
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: send a request: %v", errSpawnerBroken, err)
		}
		break
	}
	var answer [4]byte
	oob := make([]byte, unix.CmsgSpace(2*4))
	var n, oobn, flags int
	var err error
	for {
		n, oobn, flags, _, err = unix.Recvmsg(s.sock, answer[:], oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read its answer: %v", errSpawnerBroken, err)
	}
	var fds []int
	if msgs, perr := unix.ParseSocketControlMessage(oob[:oobn]); perr == nil {
		for _, m := range msgs {
			if got, rerr := unix.ParseUnixRights(&m); rerr == nil {
				fds = append(fds, got...)
			}
		}
	}
	pid := int32(binary.NativeEndian.Uint32(answer[:]))
	if n == len(answer) && flags&unix.MSG_CTRUNC == 0 && pid > 0 && len(fds) == 2 {
		// As startSpare sets it on the spec socket it makes.
		tv := unix.NsecToTimeval(sendTimeout.Nanoseconds())
		_ = unix.SetsockoptTimeval(fds[1], unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv) // Best effort: a hang guard.
		return &spare{proc: &child{Pid: int(pid)}, report: os.NewFile(uintptr(fds[0]), "|report"), sock: fds[1]}, nil
	}
	for _, fd := range fds {
		_ = unix.Close(fd) // Best effort: none is used.
	}
	if n == len(answer) && pid < 0 && len(fds) == 0 {
		return nil, fmt.Errorf("spawn helper: spawner: make a spare: %w", syscall.Errno(-pid))
	}
	if n == len(answer) && pid > 0 {
		// A spare whose descriptors did not all come is this process's
		// child all the same: killed and reaped here. (A short answer
		// names no process: nothing is signalled on its account.)
		c := &child{Pid: int(pid)}
		_ = c.Signal(syscall.SIGKILL) // Best effort: it may have ended.
		_, _ = c.Wait()
	}
	return nil, fmt.Errorf("%w: an answer of %d bytes, %d descriptors", errSpawnerBroken, n, len(fds))
}

// stop ends the spawner (end of file on its socket, and SIGKILL in case it
// is stopped) and reaps it. The spares it made are not touched.
func (s *spawner) stop() {
	_ = unix.Close(s.sock)             // Best effort.
	_ = s.proc.Signal(syscall.SIGKILL) // Best effort: it may have ended.
	_, _ = s.proc.Wait()
}
