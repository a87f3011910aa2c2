/*
 * restrict_child: the sandbox seam. The runtime decides the policy and
 * builds it (a Landlock ruleset, a seccomp BPF program); the helper only
 * applies what it is given, in the program's process, after everything
 * else is set up and just before the descriptors are closed and the
 * program is exec'd. Nothing here chooses what is allowed.
 *
 * Order and what a policy must therefore still allow: no_new_privs, then
 * Landlock (landlock_restrict_self), then seccomp (last, so the Landlock
 * call is not filtered); after that the helper calls close_range (or
 * close), and execve. Both descriptors are closed before the exec.
 */
#define _GNU_SOURCE
#include "helper.h"
#ifdef __linux__
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#ifdef __linux__
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

/* The largest program the kernel accepts (BPF_MAXINSNS). */
#define MAX_FILTER 4096

/* The program is read onto the stack (the program's process runs on a
 * stack of its own, unmapped after its exec): a static buffer would stay
 * in the supervisor's memory, written, for the session's life. */
static int apply_seccomp(int fd)
{
	struct sock_filter prog[MAX_FILTER + 1];
	size_t have = 0, cap = sizeof prog;
	for (;;) {
		ssize_t n = read(fd, (char *)prog + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		have += (size_t)n;
		if (have == cap) {
			errno = E2BIG; /* more than MAX_FILTER instructions */
			return -1;
		}
	}
	if (have == 0 || have % sizeof prog[0] != 0) {
		errno = EINVAL;
		return -1;
	}
	struct sock_fprog fprog = {.len = (unsigned short)(have / sizeof prog[0]), .filter = prog};
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}
#endif

int restrict_child(const struct restrictions *r)
{
	if (r->landlock_fd < 0 && r->seccomp_fd < 0)
		return 0;
#ifdef __linux__
	/* Both need no_new_privs unless the caller has CAP_SYS_ADMIN; it also
	 * keeps a set-uid program from shedding the restrictions. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	if (r->landlock_fd >= 0 && syscall(SYS_landlock_restrict_self, r->landlock_fd, 0) != 0)
		return -1;
	if (r->seccomp_fd >= 0 && apply_seccomp(r->seccomp_fd) != 0)
		return -1;
	return 0;
#else
	errno = ENOSYS; /* macOS has neither; its sandbox is applied elsewhere */
	return -1;
#endif
}
