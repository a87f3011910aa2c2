//go:build linux && cgo

package spawnhelper

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

// The steps of a narrow start, which startNarrow tells apart.
enum { NARROW_OK, NARROW_UNSHARE, NARROW_RECEIVE, NARROW_PLACE, NARROW_LIMIT, NARROW_EXEC };

#define NARROW_MAX 64

struct narrow {
	const char *path;
	char *const *argv, *const *envp;
	int recv;              // the low socket the descriptors arrive on
	int nfds;              // the child's descriptors 0..nfds-1
	int fds[NARROW_MAX];   // this process's descriptors for them (sent)
	char have[NARROW_MAX]; // have[i]: whether descriptor i comes (else it is closed)
	long nofile;           // RLIMIT_NOFILE's soft limit to restore, or -1 to inherit
	long nofile_cur, nofile_max; // ... only if the limit is still this one
	int step, err;         // where and why the child failed; 0 once exec'd
};

static int narrow_fail(struct narrow *n, int step)
{
	n->step = step;
	n->err = errno;
	_exit(127);
	return 0;
}

// take_rights receives one message on sock without waiting and puts the
// descriptors it carried in fds, up to max; it returns how many, or -1
// (errno set). System calls only: the child uses it too.
static int take_rights(int sock, int *fds, int max)
{
	char byte[1];
	union {
		char buf[CMSG_SPACE(NARROW_MAX * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = byte, .iov_len = sizeof byte};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
	long r;
	do
		r = syscall(SYS_recvmsg, sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	int k = 0;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
			if (k < max)
				fds[k++] = fd;
			else
				syscall(SYS_close, fd);
		}
	return k;
}

// narrow_child runs in the new process, on its own stack, in this
// process's memory, with every signal blocked, until its exec. It may
// only make system calls.
static int narrow_child(void *arg)
{
	struct narrow *n = arg;
	// A private descriptor table holding only 0..recv of the shared one:
	// the kernel copies those entries and drops the rest with the shared
	// table's reference, instead of copying all and closing each.
	if (syscall(SYS_close_range, n->recv + 1, ~0U, CLOSE_RANGE_UNSHARE) != 0)
		return narrow_fail(n, NARROW_UNSHARE);
	int got[NARROW_MAX];
	int k = take_rights(n->recv, got, NARROW_MAX);
	if (k < 0)
		return narrow_fail(n, NARROW_RECEIVE);
	int fd[NARROW_MAX];
	for (int i = 0, j = 0; i < n->nfds; i++) {
		fd[i] = -1;
		if (n->have[i]) {
			if (j >= k) {
				errno = EBADMSG;
				return narrow_fail(n, NARROW_RECEIVE);
			}
			fd[i] = got[j++];
		}
	}
	// Every source above the targets first, so that no dup2 below
	// replaces a source still to be used.
	for (int i = 0; i < n->nfds; i++)
		if (fd[i] >= 0 && fd[i] < n->nfds) {
			fd[i] = (int)syscall(SYS_fcntl, fd[i], F_DUPFD_CLOEXEC, n->nfds);
			if (fd[i] < 0)
				return narrow_fail(n, NARROW_PLACE);
		}
	for (int i = 0; i < n->nfds; i++) {
		if (fd[i] < 0)
			syscall(SYS_close, i);
		else if (syscall(SYS_dup3, fd[i], i, 0) < 0)
			return narrow_fail(n, NARROW_PLACE);
	}
	if (syscall(SYS_close_range, n->nfds, ~0U, 0) != 0)
		return narrow_fail(n, NARROW_PLACE);
	if (n->nofile >= 0) {
		struct rlimit rl;
		if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0)
			return narrow_fail(n, NARROW_LIMIT);
		if (rl.rlim_cur == (rlim_t)n->nofile_cur && rl.rlim_max == (rlim_t)n->nofile_max) {
			rl.rlim_cur = (rlim_t)n->nofile;
			if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL) != 0)
				return narrow_fail(n, NARROW_LIMIT);
		}
	}
	// Signals stay blocked through the exec (no handler of this process
	// may run in the child); the spawn helper clears its mask first.
	syscall(SYS_execve, n->path, n->argv, n->envp);
	return narrow_fail(n, NARROW_EXEC);
}

// The child's stack, made once and used by one start at a time
// (narrow.mu), above a guard page: an overflow faults instead of writing
// into whatever lies below.
#define NARROW_STACK (64 * 1024)
#define NARROW_GUARD 4096
static char *narrow_stack;

// narrow_spawn sends the present descriptors of fds on send, starts path
// in a child that shares this process's descriptor table only until it
// has kept 0..n->recv of it, and returns the child's pid, or -1 with
// n->step and n->err saying why (a child that failed has been reaped).
static int narrow_spawn(struct narrow *n, int send)
{
	if (narrow_stack == NULL) {
		char *s = mmap(NULL, NARROW_GUARD + NARROW_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (s == MAP_FAILED) {
			n->step = NARROW_OK;
			n->err = errno;
			return -1;
		}
		if (mprotect(s, NARROW_GUARD, PROT_NONE) != 0) {
			n->step = NARROW_OK;
			n->err = errno;
			munmap(s, NARROW_GUARD + NARROW_STACK);
			return -1;
		}
		narrow_stack = s + NARROW_GUARD;
	}
	int rights[NARROW_MAX], k = 0;
	for (int i = 0; i < n->nfds; i++)
		if (n->have[i])
			rights[k++] = n->fds[i];
	union {
		char buf[CMSG_SPACE(sizeof rights)];
		struct cmsghdr align;
	} control;
	char byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	if (k > 0) {
		memset(control.buf, 0, sizeof control.buf);
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(k * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(c), rights, k * sizeof(int));
	}
	n->step = NARROW_OK;
	n->err = 0;
	if (sendmsg(send, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
		n->err = errno;
		return -1;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int pid = clone(narrow_child, narrow_stack + NARROW_STACK, CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, n);
	int clone_err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	// A child that failed before taking the descriptors left them queued.
	int left[NARROW_MAX];
	int nleft = take_rights(n->recv, left, NARROW_MAX);
	for (int i = 0; i < nleft; i++)
		close(left[i]);
	if (pid < 0) {
		n->err = clone_err;
		return -1;
	}
	if (n->step != NARROW_OK) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	return pid;
}
*/
import "C"

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A narrow spawn (issue 16): an exec costs the process that starts it in
// proportion to the descriptors it holds, since the kernel copies the whole
// table into the child and then closes each close-on-exec entry, some 0.2
// µs apiece; a library host with 2,048 live sessions holds about 10,000, so
// each supervisor it exec'd cost about 2 ms more than its first. The child
// here shares the table (CLONE_FILES) and at once keeps a private copy of
// its lowest entries only (close_range with CLOSE_RANGE_UNSHARE), which
// costs in proportion to those. The descriptors it must have are sent
// ahead over a socket pair as SCM_RIGHTS and taken from the socket's end
// kept at the lowest number free when the pair was made; then they are
// put in place, the rest closed, and the helper exec'd with every signal
// blocked (the child runs in this process's memory: none of its handlers
// may run there), which the helper clears first. Without cgo, on a kernel
// without CLOSE_RANGE_UNSHARE (before 5.9) or a process whose seccomp
// filter refuses it, or when the socket pair is gone, spawns go through
// syscall.StartProcess.
var narrow struct {
	mu         sync.Mutex
	off        bool // not supported here: every spawn goes through syscall.StartProcess
	send, recv int  // the socket pair's ends; recv low, -1 until made
	sendIno    uint64
	recvIno    uint64
	// RLIMIT_NOFILE: Go raises this process's soft limit at start and
	// restores it in the children it starts, while the limit is still
	// the one it set (syscall.origRlimitNofile, which is not exported). A
	// narrow child does the same: nofile is the soft limit the first
	// child syscall.StartProcess started was given, and nofileCur and
	// nofileMax the limit this process had then. probed: nofile was
	// read (-1: the child got this process's own, nothing to restore).
	probed                       bool
	nofile, nofileCur, nofileMax int64

	started int // children started narrowly (tests)
}

// startNarrow starts path like startChild. ok is false when it did not
// start it (not supported here, more descriptors than the C side places,
// or a step before the exec failed): the caller then uses
// syscall.StartProcess.
func startNarrow(path string, argv, env []string, files []*os.File) (pid int, err error, ok bool) {
	if len(files) > C.NARROW_MAX {
		return 0, nil, false
	}
	narrow.mu.Lock()
	defer narrow.mu.Unlock()
	if narrow.off || !narrow.probed || !narrowPair() {
		return 0, nil, false
	}
	block, ptrs := cStrings(path, argv, env)
	defer C.free(block)
	// n holds no Go pointer (the strings and the pointer array are C
	// memory), as cgo requires of what it passes.
	n := C.struct_narrow{
		path:   ptrs[0],
		argv:   &ptrs[1],
		envp:   &ptrs[2+len(argv)],
		recv:   C.int(narrow.recv),
		nfds:   C.int(len(files)),
		nofile: C.long(narrow.nofile),

		nofile_cur: C.long(narrow.nofileCur),
		nofile_max: C.long(narrow.nofileMax),
	}
	for i, f := range files {
		if f != nil {
			n.have[i], n.fds[i] = 1, C.int(f.Fd())
		}
	}
	got := C.narrow_spawn(&n, C.int(narrow.send))
	runtime.KeepAlive(files)
	if got >= 0 {
		narrow.started++
		return int(got), nil, true
	}
	errno := syscall.Errno(n.err)
	switch {
	case n.step == C.NARROW_EXEC:
		return 0, errno, true // what syscall.StartProcess would have said
	case errno == syscall.ENOSYS || errno == syscall.EINVAL || errno == syscall.EPERM:
		// Not to be had here, whatever the step: a kernel before 5.9
		// (no CLOSE_RANGE_UNSHARE), or a seccomp filter on this process
		// refusing close_range or the clone (older container
		// profiles). The usual way from now on.
		narrow.off = true
	}
	return 0, nil, false
}

// narrowPair makes the socket pair, or checks that the one made is still
// there: a host may have closed its descriptors (say, every descriptor
// above 2) and opened others at their numbers. false: none can be made.
func narrowPair() bool {
	if narrow.recv >= 0 {
		if isSocket(narrow.send, narrow.sendIno) && isSocket(narrow.recv, narrow.recvIno) {
			return true
		}
		// Not both ours any more: neither is closed here, since another
		// owner may hold that number now; a new pair is made.
	}
	sv, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	// The receiving end at the lowest number free: the child keeps every
	// entry up to it.
	low, err := unix.FcntlInt(uintptr(sv[1]), unix.F_DUPFD_CLOEXEC, 0)
	_ = unix.Close(sv[1]) // Best effort.
	var sendSt, recvSt unix.Stat_t
	if err != nil || unix.Fstat(sv[0], &sendSt) != nil || unix.Fstat(low, &recvSt) != nil {
		_ = unix.Close(sv[0]) // Best effort.
		if err == nil {
			_ = unix.Close(low) // Best effort.
		}
		return false
	}
	narrow.send, narrow.sendIno = sv[0], sendSt.Ino
	narrow.recv, narrow.recvIno = low, recvSt.Ino
	return true
}

// isSocket reports whether fd is the socket with inode ino (socket inodes
// are unique while the socket is open).
func isSocket(fd int, ino uint64) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Ino == ino && st.Mode&unix.S_IFMT == unix.S_IFSOCK
}

// cStrings lays path, argv, env out in one C allocation: the strings and
// the pointer array [path, argv..., NULL, env..., NULL] that ptrs indexes.
func cStrings(path string, argv, env []string) (block unsafe.Pointer, ptrs []*C.char) {
	all := append(append([]string{path}, argv...), env...)
	size := 0
	for _, s := range all {
		size += len(s) + 1
	}
	nptr := len(all) + 2
	ptrSize := int(unsafe.Sizeof((*C.char)(nil)))
	block = C.malloc(C.size_t(nptr*ptrSize + size))
	ptrs = unsafe.Slice((*(*C.char))(block), nptr)
	text := unsafe.Slice((*byte)(unsafe.Add(block, nptr*ptrSize)), size)
	at, slot := 0, 0
	for i, s := range all {
		ptrs[slot] = (*C.char)(unsafe.Pointer(&text[at]))
		at += copy(text[at:], s)
		text[at] = 0
		at++
		slot++
		if i == len(argv) { // after path and argv: argv's NULL
			ptrs[slot] = nil
			slot++
		}
	}
	ptrs[slot] = nil
	return block, ptrs
}

// noteNofile reads the RLIMIT_NOFILE the child pid, just started by
// syscall.StartProcess, got, the first time it is called.
func noteNofile(pid int) {
	narrow.mu.Lock()
	defer narrow.mu.Unlock()
	if narrow.probed {
		return
	}
	var mine unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &mine) != nil {
		return
	}
	theirs, ok := softNofile(pid)
	if !ok {
		return
	}
	narrow.probed = true
	narrow.nofile = -1
	if theirs != int64(mine.Cur) {
		narrow.nofile, narrow.nofileCur, narrow.nofileMax = theirs, int64(mine.Cur), int64(mine.Max)
	}
}

// softNofile is the soft RLIMIT_NOFILE of process pid, from
// /proc/PID/limits ("Max open files  SOFT  HARD  files").
func softNofile(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, found := strings.CutPrefix(line, "Max open files")
		if !found {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 || f[0] == "unlimited" {
			return 0, false
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		return v, err == nil
	}
	return 0, false
}

func init() { narrow.recv, narrow.send = -1, -1 }
