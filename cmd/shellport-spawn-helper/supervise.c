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
 * "Everything" is every descendant: /proc is scanned for the processes
 * whose parent chain leads here, each gets SIGKILL (through a pidfd, after
 * checking that the pid still names a descendant, so a recycled pid is
 * never hit), the dead are reaped, and the scan repeats until there are no
 * children left, within a bound so that a process stuck in an
 * uninterruptible sleep cannot hold the supervisor for ever. Then the
 * supervisor exits with the program's status: the same exit code, or the
 * same signal raised on itself (core dumps off), so the runtime's wait
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

struct proc {
	pid_t pid, ppid;
	int mine; /* a descendant of the supervisor */
};

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
	return (x > y) - (x < y);
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

static struct proc *find(struct proc *v, size_t n, pid_t pid)
{
	struct proc key = {.pid = pid};
	return bsearch(&key, v, n, sizeof *v, by_pid);
}

/* kill_pid sends SIGKILL to pid if it is still a descendant: the pidfd pins
 * the process, then its parent is checked against the tree just scanned. */
static void kill_pid(struct proc *v, size_t n, pid_t pid)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0) {
		if (errno == ENOSYS)
			kill(pid, SIGKILL); /* before Linux 5.3 */
		return;
	}
	pid_t ppid = read_ppid(pid);
	struct proc *parent = ppid > 0 ? find(v, n, ppid) : NULL;
	if (parent != NULL && parent->mine)
		syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
	close(pfd);
}

/* kill_tree sends SIGKILL to every descendant found in /proc. */
static void kill_tree(struct state *s)
{
	DIR *d = opendir("/proc");
	if (d == NULL) {
		/* No /proc: the program's own process group is all that can
		 * still be named. */
		kill(-s->target, SIGKILL);
		kill(s->target, SIGKILL);
		return;
	}
	size_t n = 0, cap = 256;
	struct proc *v = malloc(cap * sizeof *v);
	struct dirent *e;
	while (v != NULL && (e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name || pid <= 0)
			continue;
		pid_t ppid = read_ppid((pid_t)pid);
		if (ppid < 0)
			continue;
		if (n == cap) {
			cap *= 2;
			struct proc *w = realloc(v, cap * sizeof *v);
			if (w == NULL)
				break;
			v = w;
		}
		v[n++] = (struct proc){.pid = (pid_t)pid, .ppid = ppid, .mine = pid == s->self};
	}
	closedir(d);
	if (v == NULL)
		return;
	qsort(v, n, sizeof *v, by_pid);
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			if (v[i].mine)
				continue;
			struct proc *p = find(v, n, v[i].ppid);
			if (p != NULL && p->mine) {
				v[i].mine = 1;
				changed = 1;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].mine && v[i].pid != s->self)
			kill_pid(v, n, v[i].pid);
	free(v);
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

/* start forks the program and waits for its exec. */
static void start(struct state *s)
{
	const struct options *o = s->o;
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) != 0)
		setup_failed(o, STEP_SETUP, errno);
	pid_t pid = fork();
	if (pid < 0)
		setup_failed(o, STEP_FORK, errno);
	if (pid == 0) {
		close(ep[0]);
		struct failure f = {STEP_NONE, 0};
		prepare_and_exec(o, s->self, ep[1], &f);
		ssize_t n = write(ep[1], &f, sizeof f);
		(void)n;
		_exit(FAIL_STATUS);
	}
	close(ep[1]);
	struct failure f;
	ssize_t n;
	do
		n = read(ep[0], &f, sizeof f);
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	if (n == (ssize_t)sizeof f) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		setup_failed(o, f.op, f.err);
	}
	/* End of file: the exec succeeded (the pipe was close-on-exec), or the
	 * child was killed before it; the wait tells which. */
	s->target = pid;
	char line[32];
	snprintf(line, sizeof line, "pid %d\n", (int)pid);
	put_report(o->report_fd, line);
}

/* drop_descriptors keeps only what the supervisor itself uses: the
 * program's terminal and output pipes must reach end of file when the
 * program's processes are gone, not when the supervisor is. */
static void drop_descriptors(struct state *s)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd <= 2; fd++) {
		if (null >= 0)
			dup2(null, fd);
		else
			close(fd);
	}
	int keep[3], n = 0;
	keep[n++] = s->sfd;
	if (s->o->life_fd >= 0)
		keep[n++] = s->o->life_fd;
	if (s->o->report_fd >= 0)
		keep[n++] = s->o->report_fd;
	close_except(3, keep, n);
}

void supervise(const struct options *o)
{
	struct state s = {.o = o, .self = getpid(), .sfd = -1};
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
