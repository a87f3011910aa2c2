/*
 * prepare_and_exec: the state every program shellport starts begins with,
 * whoever spawned it and whatever the spawner leaked into it.
 */
#define _GNU_SOURCE
#include "helper.h"

extern char **environ;

#ifdef __linux__
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#endif

static void fail(struct failure *f, int op, int err)
{
	f->op = op;
	f->err = err;
}

/* close_gaps closes [low, ∞) except the descriptors in keep (sorted,
 * ascending) with close_range (Linux 5.9), one call per gap. */
static int close_gaps(int low, const int *keep, int nkeep)
{
#ifdef __linux__
	unsigned from = (unsigned)low;
	for (int i = 0; i < nkeep; i++) {
		if (keep[i] < low || (unsigned)keep[i] < from)
			continue;
		if ((unsigned)keep[i] > from && syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0) != 0)
			return -1;
		from = (unsigned)keep[i] + 1;
	}
	return (int)syscall(SYS_close_range, from, ~0U, 0);
#else
	(void)low;
	(void)keep;
	(void)nkeep;
	errno = ENOSYS;
	return -1;
#endif
}

static int kept(int fd, const int *keep, int nkeep)
{
	for (int i = 0; i < nkeep; i++)
		if (keep[i] == fd)
			return 1;
	return 0;
}

/* close_listed closes the descriptors the kernel lists as open. */
#ifdef __linux__
struct close_args {
	int low, listing;
	const int *keep;
	int nkeep;
};

static void close_entry(long fd, void *arg)
{
	const struct close_args *a = arg;
	if (fd >= a->low && fd != a->listing && !kept((int)fd, a->keep, a->nkeep))
		close((int)fd);
}

static int close_listed(int low, const int *keep, int nkeep)
{
	int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	struct close_args a = {.low = low, .listing = dfd, .keep = keep, .nkeep = nkeep};
	sp_each_number(dfd, close_entry, &a);
	close(dfd);
	return 0;
}
#else
static int close_listed(int low, const int *keep, int nkeep)
{
	const char *listing = "/dev/fd";
	DIR *d = opendir(listing);
	if (d == NULL)
		return -1;
	int self = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end != '\0' || end == e->d_name)
			continue;
		if (fd >= low && fd != self && !kept((int)fd, keep, nkeep))
			close((int)fd);
	}
	closedir(d);
	return 0;
}
#endif

int close_except(int low, const int *keep, int nkeep)
{
	int sorted[8];
	if (nkeep > 8) {
		errno = EINVAL;
		return -1;
	}
	/* Insertion sort: a handful of descriptors. */
	for (int i = 0; i < nkeep; i++) {
		int j = i;
		for (; j > 0 && sorted[j - 1] > keep[i]; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = keep[i];
	}
	if (close_gaps(low, sorted, nkeep) == 0)
		return 0;
	if (close_listed(low, sorted, nkeep) == 0)
		return 0;
	/* No kernel interface and no listing: try every possible number. */
	struct rlimit rl;
	long max = 65536;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		max = (long)rl.rlim_cur;
	for (long fd = low; fd < max; fd++)
		if (!kept((int)fd, sorted, nkeep))
			close((int)fd);
	return 0;
}

/* reset_signals gives every signal its default action and unblocks all of
 * them: exec keeps ignored signals ignored and the mask as it was, and the
 * spawner (Python ignores SIGPIPE; the supervisor blocks what it waits for)
 * must not pass either on. */
static int reset_signals(void)
{
#ifdef __linux__
	/* The raw call reaches the signals glibc keeps for itself (32, 33),
	 * which its sigaction refuses. An all-zero kernel sigaction is SIG_DFL
	 * with no flags and an empty mask whatever the field order. */
	unsigned long dfl[4] = {0, 0, 0, 0};
	for (int sig = 1; sig < 65; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		syscall(SYS_rt_sigaction, sig, dfl, NULL, 8);
	}
	unsigned long none = 0;
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, 8) != 0)
		return -1;
	return 0;
#else
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		sigaction(sig, &sa, NULL);
	}
	sigset_t none;
	sigemptyset(&none);
	return sigprocmask(SIG_SETMASK, &none, NULL);
#endif
}

/* exec_program execs prog like execvp, in the PATH of the environment
 * the helper was given (which is the program's), without execvp's fallback
 * of running a file that is not an executable with /bin/sh. It returns the
 * step and errno that stopped it. */
static void exec_program(const char *prog, char **argv, struct failure *f)
{
	if (strchr(prog, '/') != NULL) {
		execve(prog, argv, environ);
		fail(f, STEP_EXEC, errno);
		return;
	}
	const char *path = getenv("PATH");
	int denied = 0;
	size_t plen = strlen(prog);
	while (path != NULL) {
		const char *colon = strchr(path, ':');
		size_t dlen = colon ? (size_t)(colon - path) : strlen(path);
		char buf[PATH_MAX];
		const char *dir = dlen == 0 ? "." : path;
		if (dlen == 0)
			dlen = 1;
		if (dlen + 1 + plen < sizeof buf) {
			memcpy(buf, dir, dlen);
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, prog, plen + 1);
			execve(buf, argv, environ);
			switch (errno) {
			case EACCES:
				denied = 1;
				break;
			case ENOENT:
			case ENOTDIR:
			case ELOOP:
			case ENAMETOOLONG:
			case ESTALE:
			case ENODEV:
			case ETIMEDOUT:
				break;
			default:
				fail(f, STEP_EXEC, errno);
				return;
			}
		}
		path = colon ? colon + 1 : NULL;
	}
	if (denied)
		fail(f, STEP_EXEC, EACCES);
	else
		fail(f, STEP_NOTFOUND, ENOENT);
}

void prepare_and_exec(const struct options *o, pid_t supervisor, int keep, struct failure *f)
{
	if (setsid() < 0) {
		/* EPERM: already a group leader; fine only if it already leads a
		 * session (a spawner that set POSIX_SPAWN_SETSID). */
		if (getsid(0) != getpid()) {
			fail(f, STEP_SETSID, errno);
			return;
		}
	}
#ifdef __linux__
	if (supervisor > 0) {
		/* The program dies with its supervisor, even one killed with
		 * SIGKILL. A supervisor that died before this line already gave
		 * the program to another parent. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
			fail(f, STEP_PDEATHSIG, errno);
			return;
		}
		if (getppid() != supervisor) {
			fail(f, STEP_PARENT, ESRCH);
			return;
		}
	}
#else
	(void)supervisor;
#endif
	if (o->tty_fd >= 0) {
		if (ioctl(o->tty_fd, TIOCSCTTY, 0) != 0) {
			fail(f, STEP_CTTY, errno);
			return;
		}
		for (int fd = 0; fd <= 2; fd++) {
			if (dup2(o->tty_fd, fd) < 0) {
				fail(f, STEP_DUP2, errno);
				return;
			}
		}
	}
	int low = 3;
	if (o->fd3 >= 0) {
		if (keep == 3) {
			keep = fcntl(keep, F_DUPFD_CLOEXEC, 4);
			if (keep < 0) {
				fail(f, STEP_FD3, errno);
				return;
			}
		}
		if (o->fd3 == 3) {
			if (fcntl(3, F_SETFD, 0) != 0) {
				fail(f, STEP_FD3, errno);
				return;
			}
		} else if (dup2(o->fd3, 3) < 0) {
			fail(f, STEP_FD3, errno);
			return;
		}
		low = 4;
	}
	if (o->dir[0] != '\0' && chdir(o->dir) != 0) {
		fail(f, STEP_CHDIR, errno);
		return;
	}
	if (reset_signals() != 0) {
		fail(f, STEP_SIGNALS, errno);
		return;
	}
	if (restrict_child(&o->restrict_to) != 0) {
		fail(f, STEP_RESTRICT, errno);
		return;
	}
	if (close_except(low, &keep, keep >= 0 ? 1 : 0) != 0) {
		fail(f, STEP_CLOSE, errno);
		return;
	}
	exec_program(o->prog, o->argv, f);
}

const char *step_name(int op)
{
	switch (op) {
	case STEP_SETSID:
		return "setsid";
	case STEP_PDEATHSIG:
		return "pdeathsig";
	case STEP_CTTY:
		return "ctty";
	case STEP_DUP2:
		return "dup2";
	case STEP_FD3:
		return "fd3";
	case STEP_CHDIR:
		return "chdir";
	case STEP_SIGNALS:
		return "signals";
	case STEP_RESTRICT:
		return "restrict";
	case STEP_CLOSE:
		return "close";
	case STEP_EXEC:
		return "exec";
	case STEP_NOTFOUND:
		return "notfound";
	case STEP_FORK:
		return "fork";
	case STEP_USAGE:
		return "usage";
	case STEP_SETUP:
		return "setup";
	case STEP_PARENT:
		return "parent";
	}
	return "unknown";
}
