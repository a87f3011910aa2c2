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
 *     end a session), the report pipe's read end closed (the runtime holds
 *     it until the supervisor's end, so its death, even by SIGKILL, closes
 *     it: poll then finds the write end in error), end of file on the life
 *     descriptor where one is given (--life), or the parent-death signal
 *     when the parent process is really gone (the kernel also sends it when
 *     only the spawning thread exits, which is not a reason to kill
 *     anything).
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
#include "helper.h"

#ifndef __linux__

void supervise(struct options *o)
{
	(void)o;
	static const char msg[] = "shellport-spawn-helper: --supervise needs Linux (a child subreaper)\n";
	ssize_t n = write(2, msg, sizeof msg - 1);
	(void)n;
	_exit(FAIL_STATUS);
}

#else

/* The parent-death signal: one the runtime never sends, so that its
 * arrival can be checked against getppid. */
#define PDEATH_SIGNAL SIGUSR1

/* How long the final sweep may take before the supervisor gives up on a
 * process that does not die (uninterruptible sleep). */
#define SWEEP_MS 2000

/* The signals the supervisor acts on. They are blocked except while it
 * waits in ppoll, so their handler (which only notes them in caught) runs
 * there and nowhere else: a signal sent at any other moment stays pending
 * until the next wait, which it then ends. Handlers rather than a
 * signalfd save a descriptor per live session (issue 16). */
static const int watched[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, PDEATH_SIGNAL};
static volatile unsigned long caught;

static void note_signal(int sig)
{
	caught |= SP_SIGBIT(sig);
}

/* The mask while waiting: only SIGPIPE stays blocked (a runtime that
 * stopped reading is an EPIPE). */
static const unsigned long wait_mask = SP_SIGBIT(SIGPIPE);

struct state {
	const struct options *o;
	pid_t self, parent, target;
	int target_done; /* the program was reaped */
	int status;      /* its wait status, once reaped */
	int kill_now;    /* a kill-everything trigger fired */
	int scan_all;    /* find descendants by scanning all of /proc */
	struct spec spec; /* the program's, from --spare or --spec; mem NULL if from the command line */
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

/* take_signals acts on the signals caught in the last wait (SIGCHLD needs
 * nothing: every wake-up reaps). */
static void take_signals(struct state *s)
{
	unsigned long got = caught;
	caught = 0;
	if (got & (SP_SIGBIT(SIGTERM) | SP_SIGBIT(SIGINT) | SP_SIGBIT(SIGHUP)))
		s->kill_now = 1;
	if ((got & SP_SIGBIT(PDEATH_SIGNAL)) && getppid() != s->parent)
		s->kill_now = 1;
}

int life_gone(int fd, short revents)
{
	if (revents & (POLLERR | POLLNVAL))
		return 1;
	char buf[64];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n == 0)
		return 1;
	return 0; /* data nobody should send, or EAGAIN: still alive */
}

/* watch_runtime fills p with what tells the supervisor that the runtime
 * is gone: the report pipe, which poll finds in error once nobody holds
 * its read end (with no events asked, its being writable never wakes the
 * wait), and the life descriptor where one is given. It returns how many
 * it filled. The runtime gives supervisors no life descriptor since issue
 * 16: the report pipe tells the same, and a live session's supervisor so
 * holds one descriptor, not two. */
static int watch_runtime(const struct options *o, struct pollfd p[2])
{
	int n = 0;
	if (o->report_fd >= 0)
		p[n++] = (struct pollfd){.fd = o->report_fd, .events = 0};
	if (o->life_fd >= 0)
		p[n++] = (struct pollfd){.fd = o->life_fd, .events = POLLIN};
	return n;
}

/* runtime_gone reports whether what watch_runtime filled says so, after a
 * poll that found n of them ready. */
static int runtime_gone(const struct pollfd *p, int n)
{
	for (int i = 0; i < n; i++) {
		if (p[i].revents == 0)
			continue;
		if (p[i].events == 0 ? (p[i].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0 : life_gone(p[i].fd, p[i].revents))
			return 1;
	}
	return 0;
}

/* A set of pids: the supervisor's tree as one walk found it. */
struct pidset {
	pid_t *v;
	size_t n, cap;
	int failed; /* out of memory: what was found is still killed */
};

/* grow maps or remaps *v to hold cap elements of size bytes. The sets live
 * in pages of their own, unmapped once the sweep is done, so a sweep
 * leaves nothing in the memory of a supervisor that lives on. */
static int grow(void **v, size_t old_cap, size_t cap, size_t size)
{
	void *w = old_cap ? mremap(*v, old_cap * size, cap * size, MREMAP_MAYMOVE)
			  : mmap(NULL, cap * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return -1;
	*v = w;
	return 0;
}

static void add_pid(struct pidset *t, pid_t pid)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		if (grow((void **)&t->v, t->cap, cap, sizeof *t->v) != 0) {
			t->failed = 1;
			return;
		}
		t->cap = cap;
	}
	t->v[t->n++] = pid;
}

static void free_pids(struct pidset *t)
{
	if (t->cap)
		munmap(t->v, t->cap * sizeof *t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

/* sort_pids sorts v in place (heapsort: no recursion, no extra memory). */
static void sort_pids(pid_t *v, size_t n)
{
	if (n < 2)
		return;
	/* First sift every inner node down (start counts down to 0), then
	 * move the largest to the end, one at a time (end counts down). */
	size_t start = n / 2, end = n;
	for (;;) {
		if (start > 0) {
			start--;
		} else {
			end--;
			if (end == 0)
				return;
			pid_t t = v[end];
			v[end] = v[0];
			v[0] = t;
		}
		size_t root = start;
		for (size_t child; (child = 2 * root + 1) < end; root = child) {
			if (child + 1 < end && v[child] < v[child + 1])
				child++;
			if (v[root] >= v[child])
				break;
			pid_t t = v[root];
			v[root] = v[child];
			v[child] = t;
		}
	}
}

static int has_pid(const struct pidset *t, pid_t pid)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid] == pid)
			return 1;
		if (t->v[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
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
	 * fields start after the last ')': " S PPID ...". */
	char *p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
		return -1;
	char *end;
	long ppid = strtol(p + 4, &end, 10);
	if (end == p + 4 || *end != ' ' || ppid < 0)
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

struct thread_walk {
	pid_t pid;
	struct pidset *t;
	int missing;
};

static void add_thread_children(long tid, void *arg)
{
	struct thread_walk *w = arg;
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)w->pid, (int)tid);
	if (add_children(path, w->t) != 0 && errno == ENOENT) {
		/* The thread ended, or the file does not exist: the task's
		 * directory tells which. */
		char dir[96];
		snprintf(dir, sizeof dir, "/proc/%d/task/%d", (int)w->pid, (int)tid);
		if (access(dir, F_OK) == 0)
			w->missing = 1;
	}
}

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
	struct thread_walk w = {.pid = pid, .t = t};
	sp_each_number(dfd, add_thread_children, &w);
	close(dfd);
	if (w.missing) {
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
struct proc_scan {
	struct pidset all, parents; /* each process, and its parent at the same index */
};

static void note_parent(long pid, void *arg)
{
	struct proc_scan *scan = arg;
	if (pid <= 0)
		return;
	pid_t ppid = read_ppid((pid_t)pid);
	if (ppid < 0)
		return;
	add_pid(&scan->all, (pid_t)pid);
	add_pid(&scan->parents, ppid);
}

static int scan_proc(pid_t self, struct pidset *t)
{
	int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	struct proc_scan scan = {0};
	sp_each_number(dfd, note_parent, &scan);
	close(dfd);
	struct pidset all = scan.all, parents = scan.parents;
	/* Grow the tree from the supervisor until a pass adds nothing. A
	 * process's parent is added before it in most passes (pids mostly grow
	 * down a tree), so this takes few passes. */
	add_pid(t, self);
	char *mine = NULL;
	size_t mine_len = all.n ? all.n : 1;
	if (grow((void **)&mine, 0, mine_len, 1) != 0)
		mine = NULL; /* mmap's pages are zero */
	if (mine == NULL || all.failed || parents.failed)
		t->failed = 1;
	for (int changed = mine != NULL; changed;) {
		changed = 0;
		sort_pids(t->v, t->n);
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
	if (mine != NULL)
		munmap(mine, mine_len);
	free_pids(&all);
	free_pids(&parents);
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
		free_pids(&tree);
		return;
	}
	sort_pids(tree.v, tree.n);
	for (size_t i = 0; i < tree.n; i++)
		if (tree.v[i] != s->self && (i == 0 || tree.v[i] != tree.v[i - 1]))
			kill_pid(&tree, tree.v[i]);
	free_pids(&tree);
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
		long ms = left < 20 ? left : 20;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
		ppoll(NULL, 0, &ts, &wait_mask);
		take_signals(s);
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

/* drop_descriptors keeps only what the supervisor itself uses: the
 * program's terminal and output pipes must reach end of file when the
 * program's processes are gone, not when the supervisor is. Its standard
 * descriptors are closed, not pointed at /dev/null: it writes only to the
 * report pipe, and every descriptor a live session holds counts
 * (issue 16); what it opens later (pidfds, /proc files) may take their
 * numbers, which is harmless. */
static void drop_descriptors(struct state *s)
{
	int keep[2], n = 0;
	if (s->o->life_fd >= 0)
		keep[n++] = s->o->life_fd;
	if (s->o->report_fd >= 0)
		keep[n++] = s->o->report_fd;
	close_except(0, keep, n);
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
 * no lock the child could need; the helper's runtime (rt_linux.c) keeps no
 * state but errno. Its signal handlers are the supervisor's until
 * prepare_and_exec resets them, and every signal they catch is blocked
 * until then. */
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
	pid_t pid = sp_clone(child_main, stack + CHILD_STACK + GUARD_PAGE, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
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
	 * the wait tells which. The descriptors are dropped before the report,
	 * so a started program's supervisor holds only its own. */
	s->target = pid;
	drop_descriptors(s);
	char line[32];
	snprintf(line, sizeof line, "pid %d\n", (int)pid);
	put_report(o->report_fd, line);
}

/* use_spec makes s->spec's strings the program's directory, path, argv
 * and environment. */
static void use_spec(struct state *s, struct options *o)
{
	o->dir = s->spec.dir;
	o->prog = s->spec.prog;
	o->argv = s->spec.argv;
	environ = s->spec.envp;
	if (s->spec.flags & SPEC_FLAG_SWEEP_SCAN_ALL)
		s->scan_all = 1;
}

/* await_spec is a spare's wait (--spare): set up, it waits for the one
 * program it will supervise, whose spec and descriptors arrive on
 * o->spare_fd (spare.c), and fills o with them. While it waits it has no
 * child: every trigger that would kill everything ends it instead, as
 * does end of file on the socket (the runtime let it go). Its own
 * standard descriptors are /dev/null; the program's arrive with the spec
 * and take their places. */
static void await_spec(struct state *s, struct options *o)
{
	/* Whatever the runtime's process let a child inherit is not held
	 * while the spare waits (a host's pipe would not reach end of file):
	 * only its standard descriptors, the life and report pipes and the
	 * socket stay. */
	int keep[3] = {o->life_fd, o->report_fd, o->spare_fd};
	close_except(3, keep, 3);
	for (;;) {
		struct pollfd p[3] = {{.fd = o->spare_fd, .events = POLLIN}};
		int watched = watch_runtime(o, p + 1);
		int n = ppoll(p, 1 + (unsigned)watched, NULL, &wait_mask);
		if (n < 0 && errno != EINTR)
			_exit(FAIL_STATUS);
		take_signals(s);
		if (s->kill_now)
			_exit(FAIL_STATUS);
		if (n > 0 && runtime_gone(p + 1, watched))
			_exit(FAIL_STATUS);
		if (n > 0 && p[0].revents != 0)
			break;
	}
	struct spec *spec = &s->spec;
	int fds[SPEC_MAX_FDS], nfds = 0;
	int r = recv_spec(o->spare_fd, spec, fds, &nfds);
	if (r <= 0) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		if (r == 0)
			_exit(0); /* let go unclaimed */
		setup_failed(o, STEP_USAGE, EINVAL);
	}
	close(o->spare_fd);
	o->spare_fd = -1;
	for (int fd = 0; fd <= 2; fd++) {
		int from = spec->fd[SPEC_STDIN + fd];
		if (from < 0 || from == fd)
			continue;
		if (dup2(from, fd) < 0)
			setup_failed(o, STEP_DUP2, errno);
		close(from);
	}
	o->tty_fd = spec->fd[SPEC_TTY];
	o->fd3 = spec->fd[SPEC_FD3];
	o->restrict_to.landlock_fd = spec->fd[SPEC_LANDLOCK];
	o->restrict_to.seccomp_fd = spec->fd[SPEC_SECCOMP];
	use_spec(s, o);
}

/* take_spec_file reads the program's spec from --spec FD, a file the
 * runtime wrote (a memfd), instead of the command line: strings on the
 * command line and in the environment stay in the supervisor's stack for
 * its whole life (a persistent shell's boot line and environment, two or
 * three pages), while the spec's pages go once the program is exec'd. */
static void take_spec_file(struct state *s, struct options *o)
{
	if (read_spec(o->spec_fd, &s->spec) != 0)
		setup_failed(o, STEP_USAGE, EINVAL);
	close(o->spec_fd);
	o->spec_fd = -1;
	use_spec(s, o);
}

void supervise(struct options *o)
{
	struct state s = {.o = o, .self = getpid(), .scan_all = o->sweep_scan_all};
	unsigned long block = wait_mask;
	for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++)
		block |= SP_SIGBIT(watched[i]);
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, NULL, sizeof block) != 0)
		setup_failed(o, STEP_SETUP, errno);
	/* The handler also replaces an inherited "ignore" of SIGCHLD, which
	 * would have the kernel reap the children itself and lose the
	 * program's status. */
	for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++)
		if (sp_sigaction_set(watched[i], note_signal, block) != 0)
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

	if (o->spare_fd >= 0)
		await_spec(&s, o);
	else if (o->spec_fd >= 0)
		take_spec_file(&s, o);
	start(&s);
	/* The program has been exec'd: its strings are not read again. */
	if (s.spec.mem != NULL) {
		o->dir = o->prog = NULL;
		o->argv = NULL;
		environ = NULL;
		release_spec(&s.spec);
	}

	while (!s.kill_now && !s.target_done) {
		struct pollfd p[2];
		int watched = watch_runtime(o, p);
		int n = ppoll(p, (unsigned)watched, NULL, &wait_mask);
		if (n < 0 && errno != EINTR) {
			s.kill_now = 1; /* cannot watch any more: fail safe */
			break;
		}
		take_signals(&s);
		if (n > 0 && runtime_gone(p, watched))
			s.kill_now = 1;
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
