/*
 * supervise: the Linux supervisor. One per program the runtime starts; it
 * forks the program, owns every process the program leaves behind, and
 * kills all of them when the program ends, when the runtime asks, or when
 * the runtime is gone.
 *
 *   - It is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever a command
 *     detaches (setsid, double fork, nohup, disown, set -m jobs) is
 *     reparented to it, not to init, so it can always find and reap it.
 *   - It leads a session of its own: a Ctrl-C on the host's terminal does
 *     not reach it, and the program's own setsid cannot take it along.
 *   - Kill everything: SIGTERM, SIGINT or SIGHUP (what the runtime sends to
 *     end a session), end of file on the life descriptor (the runtime holds
 *     the other end for its whole life, so its death, even by SIGKILL,
 *     closes it), or the parent-death signal when the parent process is
 *     really gone (the kernel also sends it when only the spawning thread
 *     exits, which is not a reason to kill anything).
 *   - When the program ends by itself, what it left running is killed too.
 *
 * "Everything" is every descendant. They are found by walking the
 * supervisor's own subtree through /proc/PID/task/TID/children, from the
 * supervisor down (a subreaper: whatever escaped its parent is its child),
 * so the cost grows with the session's processes, not the machine's; a
 * kernel without those files (no CONFIG_PROC_CHILDREN) gets the old way,
 * the parent of every process in /proc. Each gets SIGKILL (through a
 * pidfd, after checking that the pid's parent is still in the tree, so a
 * recycled pid is never hit), the dead are reaped, and the walk repeats
 * until waitpid reports no children (a subreaper without children has no
 * descendants left: the children files are not exact while processes are
 * being reparented, the loop is), within a bound so that a process stuck
 * in an uninterruptible sleep cannot hold the supervisor for ever. Then
 * the supervisor exits with the program's status: the same exit code, or
 * the same signal raised on itself (core dumps off), so the runtime's wait
 * reads exactly what it would have read from the program.
 *
 * Report lines on --report: "pid N" once the program has been exec'd,
 * "error OP ERRNO" if it could not be (the supervisor then exits 127), and
 * "end" just before a supervisor that killed and reaped everything exits.
 * A runtime that reads no "end" knows the supervisor itself was killed
 * (kill -9 of the program's parent): see docs/ARCHITECTURE.md.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

#ifndef __linux__

void supervise(const struct options *o)
{
	(void)o;
	static const char msg[] = "shellport-spawn-helper: --supervise needs Linux (a child subreaper)\n";
	ssize_t n = write(2, msg, sizeof msg - 1);
	(void)n;
	_exit(FAIL_STATUS);
}

#else

#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* The parent-death signal: one the runtime never sends, so that its
 * arrival can be checked against getppid. */
#define PDEATH_SIGNAL SIGUSR1

/* How long the final sweep may take before the supervisor gives up on a
 * process that does not die (uninterruptible sleep). */
#define SWEEP_MS 2000

struct state {
	const struct options *o;
	pid_t self, parent, target;
	int sfd;         /* signalfd of the watched signals */
	int target_done; /* the program was reaped */
	int status;      /* its wait status, once reaped */
	int kill_now;    /* a kill-everything trigger fired */
	int scan_all;    /* find descendants by scanning all of /proc */
};

static void put_report(int fd, const char *line)
{
	if (fd < 0)
		return;
	size_t len = strlen(line), off = 0;
	while (off < len) {
		ssize_t n = write(fd, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* the runtime stopped listening; it learns from the wait */
		off += (size_t)n;
	}
}

static void setup_failed(const struct options *o, int op, int err)
{
	char line[64];
	snprintf(line, sizeof line, "error %s %d\n", step_name(op), err);
	put_report(o->report_fd, line);
	_exit(FAIL_STATUS);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* reap collects every child that has ended, noting the program's status.
 * It returns 1 while children remain, 0 when there are none. */
static int reap(struct state *s)
{
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			if (pid == s->target) {
				s->target_done = 1;
				s->status = st;
			}
			continue;
		}
		if (pid == 0)
			return 1;
		if (errno == EINTR)
			continue;
		return 0; /* ECHILD */
	}
}

static void drain_signals(struct state *s)
{
	struct signalfd_siginfo si;
	for (;;) {
		ssize_t n = read(s->sfd, &si, sizeof si);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof si)
			return;
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
		case SIGHUP:
			s->kill_now = 1;
			break;
		case PDEATH_SIGNAL:
			if (getppid() != s->parent)
				s->kill_now = 1;
			break;
		}
	}
}

/* life_gone reports whether the life descriptor reached end of file. */
static int life_gone(int fd, short revents)
{
	if (revents & (POLLERR | POLLNVAL))
		return 1;
	char buf[64];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n == 0)
		return 1;
	return 0; /* data nobody should send, or EAGAIN: still alive */
}

/* A set of pids: the supervisor's tree as one walk found it. */
struct pidset {
	pid_t *v;
	size_t n, cap;
	int failed; /* out of memory: what was found is still killed */
};

static void add_pid(struct pidset *t, pid_t pid)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		pid_t *w = realloc(t->v, cap * sizeof *w);
		if (w == NULL) {
			t->failed = 1;
			return;
		}
		t->v = w;
		t->cap = cap;
	}
	t->v[t->n++] = pid;
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

static int has_pid(const struct pidset *t, pid_t pid)
{
	return bsearch(&pid, t->v, t->n, sizeof *t->v, by_pid) != NULL;
}

static pid_t read_ppid(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name is in parentheses and may itself hold ") ", so the
	 * fields start after the last ')'. */
	char *p = strrchr(buf, ')');
	int ppid;
	char state;
	if (p == NULL || sscanf(p + 1, " %c %d", &state, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

/* add_children adds the pids listed in a children file ("1 2 3 "). It
 * returns -1 if the file cannot be opened (errno set), else 0. */
static int add_children(const char *path, struct pidset *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[1024];
	long pid = 0;
	int digits = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				if (pid < 1L << 30)
					pid = pid * 10 + (buf[i] - '0');
				digits = 1;
			} else {
				if (digits && pid > 0)
					add_pid(t, (pid_t)pid);
				pid = 0;
				digits = 0;
			}
		}
	}
	if (digits && pid > 0)
		add_pid(t, (pid_t)pid);
	close(fd);
	return 0;
}

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* add_task_children adds the children of every task (thread) of pid: the
 * kernel lists a child under the thread that forked it. A process gone
 * meanwhile has nothing to add. It returns -1 with errno ENOENT when
 * pid's task exists but has no children file (a kernel without
 * CONFIG_PROC_CHILDREN), else 0. */
static int add_task_children(pid_t pid, struct pidset *t)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	/* A union keeps the buffer aligned for the records. */
	union {
		struct linux_dirent64 d;
		char b[2048];
	} u;
	int missing = 0;
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, u.b, sizeof u.b);
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(u.b + off);
			off += e->d_reclen;
			if (e->d_name[0] < '0' || e->d_name[0] > '9')
				continue;
			snprintf(path, sizeof path, "/proc/%d/task/%s/children", (int)pid, e->d_name);
			if (add_children(path, t) != 0 && errno == ENOENT) {
				/* The thread ended, or the file does not exist:
				 * the task's directory tells which. */
				char dir[96];
				snprintf(dir, sizeof dir, "/proc/%d/task/%s", (int)pid, e->d_name);
				if (access(dir, F_OK) == 0)
					missing = 1;
			}
		}
	}
	close(dfd);
	if (missing) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* walk_subtree finds the supervisor's descendants by following the
 * children files down from the supervisor itself: every process that
 * escaped its parent was reparented here (a subreaper), so its tree is
 * the supervisor's. The files are not exact while processes are being
 * reparented (the kernel says so); the sweep's loop is what makes the
 * result complete. It returns -1 when the kernel has no children files. */
static int walk_subtree(pid_t self, struct pidset *t)
{
	add_pid(t, self);
	for (size_t i = 0; i < t->n; i++)
		if (add_task_children(t->v[i], t) != 0 && i == 0)
			return -1;
	return 0;
}

/* scan_proc finds the supervisor's descendants by reading the parent of
 * every process in /proc: what kill_tree falls back to on a kernel without
 * children files (and what the tests run with --sweep-scan-all). */
static int scan_proc(pid_t self, struct pidset *t)
{
	DIR *d = opendir("/proc");
	if (d == NULL)
		return -1;
	struct pidset all = {0}, parents = {0};
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name || pid <= 0)
			continue;
		pid_t ppid = read_ppid((pid_t)pid);
		if (ppid < 0)
			continue;
		add_pid(&all, (pid_t)pid);
		add_pid(&parents, ppid);
	}
	closedir(d);
	/* Grow the tree from the supervisor until a pass adds nothing. A
	 * process's parent is added before it in most passes (pids mostly grow
	 * down a tree), so this takes few passes. */
	add_pid(t, self);
	char *mine = calloc(all.n ? all.n : 1, 1);
	if (mine == NULL || all.failed || parents.failed)
		t->failed = 1;
	for (int changed = mine != NULL; changed;) {
		changed = 0;
		qsort(t->v, t->n, sizeof *t->v, by_pid);
		size_t known = t->n;
		for (size_t i = 0; i < all.n; i++) {
			if (mine[i] || all.v[i] == self)
				continue;
			struct pidset view = {.v = t->v, .n = known};
			if (has_pid(&view, parents.v[i])) {
				mine[i] = 1;
				add_pid(t, all.v[i]);
				changed = 1;
			}
		}
	}
	free(mine);
	free(all.v);
	free(parents.v);
	return 0;
}

/* kill_pid sends SIGKILL to pid if it is still a descendant: the pidfd pins
 * the process, then its parent must be in the tree just found (so a pid
 * that was recycled by a process elsewhere is never hit). */
static void kill_pid(const struct pidset *tree, pid_t pid)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0) {
		if (errno == ENOSYS)
			kill(pid, SIGKILL); /* before Linux 5.3 */
		return;
	}
	pid_t ppid = read_ppid(pid);
	if (ppid > 0 && has_pid(tree, ppid))
		syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
	close(pfd);
}

/* kill_tree sends SIGKILL to every descendant it finds. */
static void kill_tree(struct state *s)
{
	struct pidset tree = {0};
	int found = -1;
	if (!s->scan_all) {
		found = walk_subtree(s->self, &tree);
		if (found != 0) {
			s->scan_all = 1; /* no children files: scan from now on */
			tree.n = 0;
		}
	}
	if (found != 0)
		found = scan_proc(s->self, &tree);
	if (found != 0 || tree.n == 0) {
		/* No /proc: the program's own process group is all that can
		 * still be named. */
		kill(-s->target, SIGKILL);
		kill(s->target, SIGKILL);
		free(tree.v);
		return;
	}
	qsort(tree.v, tree.n, sizeof *tree.v, by_pid);
	for (size_t i = 0; i < tree.n; i++)
		if (tree.v[i] != s->self && (i == 0 || tree.v[i] != tree.v[i - 1]))
			kill_pid(&tree, tree.v[i]);
	free(tree.v);
}

/* sweep kills and reaps every descendant. It returns 1 once none is left,
 * 0 if some did not die within SWEEP_MS. */
static int sweep(struct state *s)
{
	long deadline = now_ms() + SWEEP_MS;
	for (;;) {
		if (!reap(s))
			return 1;
		kill_tree(s);
		long left = deadline - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = {.fd = s->sfd, .events = POLLIN};
		if (poll(&p, 1, left < 20 ? (int)left : 20) > 0)
			drain_signals(s);
	}
}

/* mirror exits the way the program did. */
static void mirror(int status)
{
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	unsigned long dfl[4] = {0, 0, 0, 0}, one = 1UL << (sig - 1);
	syscall(SYS_rt_sigaction, sig, dfl, NULL, 8);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &one, NULL, 8);
	kill(getpid(), sig);
	_exit(128 + sig);
}

/* The program's process runs its set-up on a stack of its own, which the
 * supervisor unmaps once the program has been exec'd (or failed to be). */
#define CHILD_STACK (128 * 1024)
#define GUARD_PAGE 4096

struct child {
	const struct options *o;
	pid_t supervisor;
	struct failure f; /* written by the child: STEP_NONE while all went well */
};

static int child_main(void *arg)
{
	struct child *c = arg;
	prepare_and_exec(c->o, c->supervisor, -1, &c->f);
	_exit(FAIL_STATUS);
}

/* start starts the program and waits for its exec. The program's process
 * is created with CLONE_VM|CLONE_VFORK, as posix_spawn does: it shares the
 * supervisor's memory instead of copying it, and the supervisor is
 * suspended until it has exec'd or exited, so the failure it records in
 * the shared struct child is read only after it has stopped running here.
 * What runs in it, prepare_and_exec, is safe there: system calls only
 * (setsid, prctl, ioctl, dup2, fcntl, chdir, the raw signal calls,
 * Landlock and seccomp, close_range, execve), on its own stack; it returns
 * nowhere but _exit; its signal dispositions are its own (no
 * CLONE_SIGHAND), and the supervisor, single-threaded and suspended, holds
 * no lock the child could need. The one library state it can touch is the
 * heap, in close_except's fallback for kernels before close_range
 * (opendir), which it leaves as it found it. */
static void start(struct state *s)
{
	const struct options *o = s->o;
	char *stack = mmap(NULL, CHILD_STACK + GUARD_PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		setup_failed(o, STEP_SETUP, errno);
	/* An overflow faults instead of writing below the stack. */
	if (mprotect(stack, GUARD_PAGE, PROT_NONE) != 0)
		setup_failed(o, STEP_SETUP, errno);
	struct child c = {.o = o, .supervisor = s->self, .f = {STEP_NONE, 0}};
	pid_t pid = clone(child_main, stack + CHILD_STACK + GUARD_PAGE, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
	int err = errno;
	munmap(stack, CHILD_STACK + GUARD_PAGE);
	if (pid < 0)
		setup_failed(o, STEP_FORK, err);
	if (c.f.op != STEP_NONE) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		setup_failed(o, c.f.op, c.f.err);
	}
	/* No failure: the exec succeeded, or the child was killed before it;
	 * the wait tells which. */
	s->target = pid;
	char line[32];
	snprintf(line, sizeof line, "pid %d\n", (int)pid);
	put_report(o->report_fd, line);
}

/* drop_descriptors keeps only what the supervisor itself uses: the
 * program's terminal and output pipes must reach end of file when the
 * program's processes are gone, not when the supervisor is. Its standard
 * descriptors are closed, not pointed at /dev/null: it writes only to the
 * report pipe, and three descriptors per live session are not free
 * (issue 16); what it opens later (pidfds, /proc files) may take their
 * numbers, which is harmless. */
static void drop_descriptors(struct state *s)
{
	int keep[3], n = 0;
	keep[n++] = s->sfd;
	if (s->o->life_fd >= 0)
		keep[n++] = s->o->life_fd;
	if (s->o->report_fd >= 0)
		keep[n++] = s->o->report_fd;
	close_except(0, keep, n);
}

void supervise(const struct options *o)
{
	struct state s = {.o = o, .self = getpid(), .sfd = -1, .scan_all = o->sweep_scan_all};
	static const int watched[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, PDEATH_SIGNAL};
	sigset_t set, block;
	sigemptyset(&set);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++) {
		/* An inherited "ignore" of SIGCHLD would have the kernel reap the
		 * children itself, and the program's status would be lost. */
		sigaction(watched[i], &dfl, NULL);
		sigaddset(&set, watched[i]);
	}
	block = set;
	sigaddset(&block, SIGPIPE); /* a runtime that stopped reading is an EPIPE */
	if (sigprocmask(SIG_BLOCK, &block, NULL) != 0)
		setup_failed(o, STEP_SETUP, errno);

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		setup_failed(o, STEP_SETUP, errno);
	if (prctl(PR_SET_PDEATHSIG, PDEATH_SIGNAL, 0, 0, 0) != 0)
		setup_failed(o, STEP_PDEATHSIG, errno);
	s.parent = o->parent > 0 ? o->parent : getppid();
	if (getppid() != s.parent)
		setup_failed(o, STEP_PARENT, ESRCH); /* the runtime died before the prctl */
	if (setsid() < 0 && getsid(0) != s.self)
		setup_failed(o, STEP_SETSID, errno);
	s.sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s.sfd < 0)
		setup_failed(o, STEP_SETUP, errno);

	start(&s);
	drop_descriptors(&s);

	while (!s.kill_now && !s.target_done) {
		struct pollfd p[2] = {{.fd = s.sfd, .events = POLLIN}, {.fd = o->life_fd, .events = POLLIN}};
		int n = poll(p, o->life_fd >= 0 ? 2 : 1, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			s.kill_now = 1; /* cannot watch any more: fail safe */
			break;
		}
		if (o->life_fd >= 0 && p[1].revents != 0 && life_gone(o->life_fd, p[1].revents))
			s.kill_now = 1;
		if (p[0].revents != 0)
			drain_signals(&s);
		reap(&s);
	}
	if (!s.target_done)
		kill(s.target, SIGKILL);
	int clean = sweep(&s);
	if (clean)
		put_report(o->report_fd, "end\n");
	mirror(s.target_done ? s.status : SIGKILL);
}

#endif
