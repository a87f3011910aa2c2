/*
 * spawner.c: the spawner (--spawner FD, Linux; issue 16), which makes
 * spares by forking itself instead of having the runtime exec each one.
 *
 * An exec costs the process that starts it in proportion to the
 * descriptors it holds: the kernel copies the whole descriptor table into
 * the new process, then closes every close-on-exec entry one by one, some
 * 0.2 µs each. A runtime with 2,048 live sessions holds about 10,000, so
 * each spare it exec'd cost about 2 ms more than its first, and a session
 * opened late cost twice what one opened early did. The spawner is exec'd
 * once, while the runtime still holds few descriptors; a fork of it copies
 * five descriptors and a few pages.
 *
 * A spare it forks is the runtime's child, not the spawner's
 * (CLONE_PARENT): the runtime waits for it and reaps it, and its
 * parent-death signal and parent check refer to the runtime. It then runs
 * supervise() as a spare exec'd with --spare would, with its descriptors
 * at the same numbers, so from there on nothing tells the two apart.
 *
 * On FD, a unix stream socket, the runtime writes one byte per spare it
 * wants. Each is answered with four bytes in the machine's byte order: the
 * spare's pid, with two descriptors as SCM_RIGHTS (the read end of the
 * spare's report pipe, then the runtime's end of its spec socket), or
 * minus the errno of the step that failed, with none. End of file on FD or
 * on --life ends the spawner; so does any error it cannot answer.
 */
#define _GNU_SOURCE
#include "helper.h"

#ifndef __linux__

void spawner(struct options *o)
{
	(void)o;
	_exit(FAIL_STATUS);
}

#else

/* The socket constants of <sys/socket.h>, which the kernel's uapi headers
 * do not give. */
#define SP_AF_UNIX 1
#define SP_SOCK_STREAM 1
#define SP_SOCK_CLOEXEC O_CLOEXEC
#define SP_MSG_NOSIGNAL 0x4000

/* Where a spare finds its descriptors: as an exec'd one gets them
 * (internal/spawnhelper: fdLife, fdReport, fdSpare). */
enum { SPARE_LIFE = 3, SPARE_REPORT = 4, SPARE_SOCK = 5 };

/* reply sends the answer to one request, with n descriptors. */
static int reply(int sock, int answer, const int *fds, int n)
{
	union {
		char buf[SP_CMSG_LEN(2 * sizeof(int)) + 16];
		size_t align;
	} control;
	struct sp_iovec iov = {.base = &answer, .len = sizeof answer};
	struct sp_msghdr msg = {.iov = &iov, .iovlen = 1};
	if (n > 0) {
		memset(control.buf, 0, sizeof control.buf);
		struct sp_cmsghdr *c = (struct sp_cmsghdr *)control.buf;
		c->len = SP_CMSG_LEN((size_t)n * sizeof(int));
		c->level = SP_SOL_SOCKET;
		c->type = SP_SCM_RIGHTS;
		memcpy(control.buf + SP_CMSG_LEN(0), fds, (size_t)n * sizeof(int));
		msg.control = control.buf;
		msg.controllen = SP_CMSG_ALIGN(c->len);
	}
	long r;
	do
		r = syscall(__NR_sendmsg, sock, &msg, SP_MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == (long)sizeof answer ? 0 : -1;
}

/* become_spare turns the fork into a spare: the descriptors an exec'd
 * spare starts with, and nothing else, then supervise(). */
static void become_spare(pid_t runtime, int report, int sock)
{
	/* SPARE_REPORT is the spawner's socket, which the spare must not
	 * hold: dup2 closes it. report and sock are above SPARE_SOCK. */
	if (dup2(report, SPARE_REPORT) < 0 || dup2(sock, SPARE_SOCK) < 0)
		_exit(FAIL_STATUS);
	if (close_except(SPARE_SOCK + 1, NULL, 0) != 0)
		_exit(FAIL_STATUS);
	struct options o = {
		.supervise = 1,
		.life_fd = -1, /* SPARE_LIFE is the spawner's; a spare watches its report pipe (supervise.c) and closes it */
		.report_fd = SPARE_REPORT,
		.spare_fd = SPARE_SOCK,
		.spawner_fd = -1,
		.parent = runtime,
		.tty_fd = -1,
		.fd3 = -1,
		.restrict_to = {.landlock_fd = -1, .seccomp_fd = -1},
	};
	supervise(&o); /* does not return */
}

/* make_spare forks one spare and answers the request. It returns -1 when
 * the answer could not be sent: the runtime is gone or not listening. */
static int make_spare(const struct options *o)
{
	int rp[2] = {-1, -1}, sv[2] = {-1, -1};
	int answer;
	if (syscall(__NR_pipe2, rp, O_CLOEXEC) != 0 ||
	    syscall(__NR_socketpair, SP_AF_UNIX, SP_SOCK_STREAM | SP_SOCK_CLOEXEC, 0, sv) != 0) {
		answer = -errno;
	} else {
		/* A fork (no CLONE_VM): the child returns here on a copy of
		 * this stack. */
		long pid = syscall(__NR_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
		if (pid == 0)
			become_spare(o->parent, rp[1], sv[1]);
		answer = pid < 0 ? -errno : (int)pid;
	}
	int theirs[2] = {rp[0], sv[0]};
	int sent = reply(o->spawner_fd, answer, theirs, answer > 0 ? 2 : 0);
	for (int i = 0; i < 2; i++) {
		if (rp[i] >= 0)
			close(rp[i]);
		if (sv[i] >= 0)
			close(sv[i]);
	}
	if (sent != 0 && answer > 0)
		kill(answer, SIGKILL); /* nobody will claim it; the runtime reaps it, or init does */
	return sent;
}

void spawner(struct options *o)
{
	if (o->life_fd != SPARE_LIFE || o->spawner_fd != SPARE_REPORT || o->parent <= 0)
		_exit(FAIL_STATUS);
	int keep[2] = {o->life_fd, o->spawner_fd};
	if (close_except(3, keep, 2) != 0)
		_exit(FAIL_STATUS);
	/* Out of the runtime's process group, as every supervisor is: a
	 * Ctrl-C meant for the runtime's terminal does not end it. */
	setsid();
	if (getppid() != o->parent)
		_exit(FAIL_STATUS); /* the runtime died before it could be watched */
	for (;;) {
		struct pollfd p[2] = {{.fd = o->life_fd, .events = POLLIN}, {.fd = o->spawner_fd, .events = POLLIN}};
		int n = ppoll(p, 2, NULL, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			_exit(FAIL_STATUS);
		}
		if (p[0].revents != 0 && life_gone(o->life_fd, p[0].revents))
			_exit(0);
		if (p[1].revents == 0)
			continue;
		char want;
		ssize_t r = read(o->spawner_fd, &want, 1);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			_exit(0); /* the runtime let it go */
		if (make_spare(o) != 0)
			_exit(0);
	}
}

#endif
