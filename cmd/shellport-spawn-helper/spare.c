/*
 * spare.c: a pre-started supervisor's spec (issue 16). A spare is a
 * supervisor exec'd ahead of need (--spare FD): it has done its own set-up
 * (signals, subreaper, parent-death signal, its session) and waits for the
 * one program it will supervise. What the runtime decides per spawn arrives
 * as one message on FD, a unix stream socket: a header, the strings, and
 * the program's descriptors as SCM_RIGHTS on the header's first byte.
 *
 * The message, in the machine's byte order:
 *
 *   u32 magic "SPS1"  u32 payload length  u32 fd roles  u32 flags
 *   u32 argc          u32 envc
 *   payload: DIR\0 PROGRAM\0 ARGV[0]\0 ... ARGV[argc-1]\0 ENV[0]\0 ... ENV[envc-1]\0
 *
 * The roles say which descriptors came, in this order: stdin, stdout,
 * stderr, terminal, fd 3, Landlock ruleset, seccomp program (enum spec_role);
 * exactly as many as roles has bits must come. The payload holds exactly
 * argc + envc + 2 strings, each ended by its NUL, and nothing after them.
 * Anything else is refused as a usage error, without starting anything.
 *
 * A supervisor exec'd for its program reads the same message from a file
 * (--spec FD, a memfd the runtime wrote), from its start, with no roles:
 * its descriptors are the options'. Either way the strings' pages are
 * unmapped once the program has been exec'd (release_spec).
 */
#define _GNU_SOURCE
#include "helper.h"

#ifdef __linux__

static int popcount(unsigned v)
{
	int n = 0;
	for (; v != 0; v &= v - 1)
		n++;
	return n;
}

static unsigned get32(const unsigned char *p)
{
	unsigned v;
	memcpy(&v, p, sizeof v);
	return v;
}

int parse_spec(const unsigned char *header, char *payload, char **ptrs, struct spec *out)
{
	memset(out, 0, sizeof *out);
	if (get32(header) != SPEC_MAGIC)
		return -1;
	size_t len = get32(header + 4);
	out->roles = get32(header + 8);
	out->flags = get32(header + 12);
	size_t argc = get32(header + 16), envc = get32(header + 20);
	if (out->roles & ~SPEC_FD_ALL || out->flags & ~SPEC_FLAG_ALL)
		return -1;
	/* Every string takes at least its NUL, so the counts are bounded by
	 * the payload, and ptrs (spec_ptrs of the length) holds them all. */
	if (argc < 1 || argc > len || envc > len || argc + envc + 2 > len)
		return -1;
	size_t want = argc + envc + 2, got = 0, start = 0;
	for (size_t i = 0; i < len; i++) {
		if (payload[i] != '\0')
			continue;
		if (got == want)
			return -1; /* a string past the last */
		ptrs[got++] = payload + start;
		start = i + 1;
	}
	if (got != want || start != len)
		return -1; /* too few strings, or bytes after the last NUL */
	out->dir = ptrs[0];
	out->prog = ptrs[1];
	/* argv and envp are NULL-terminated arrays in ptrs: the environment's
	 * strings move up by one to leave room for argv's NULL, and envp's
	 * NULL follows them (ptrs holds want + 3). */
	out->argv = ptrs + 2;
	out->envp = ptrs + 2 + argc + 1;
	for (size_t i = envc; i > 0; i--)
		out->envp[i - 1] = ptrs[2 + argc + i - 1];
	out->argv[argc] = NULL;
	out->envp[envc] = NULL;
	out->argc = argc;
	out->envc = envc;
	return 0;
}

size_t spec_ptrs(size_t len) { return len + 3; }

/* map_spec maps the pages of a spec whose payload is len bytes: the
 * pointers parse_spec lays out, then the payload, whose start it returns
 * (NULL if the pages cannot be had). out records the mapping. */
static char *map_spec(size_t len, struct spec *out)
{
	size_t size = spec_ptrs(len) * sizeof(char *) + len;
	char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	out->mem = mem;
	out->mem_size = size;
	return mem + spec_ptrs(len) * sizeof(char *);
}

/* parse_mapped is parse_spec on the payload map_spec returned, keeping
 * the record of the mapping that parse_spec clears. */
static int parse_mapped(const unsigned char *header, char *payload, struct spec *out)
{
	void *mem = out->mem;
	size_t size = out->mem_size;
	int r = parse_spec(header, payload, (char **)mem, out);
	out->mem = mem;
	out->mem_size = size;
	return r;
}

void release_spec(struct spec *s)
{
	if (s->mem != NULL)
		munmap(s->mem, s->mem_size);
	s->mem = NULL;
	s->mem_size = 0;
}

/* read_full reads exactly n bytes: at off (pread), or from the
 * descriptor's position when off is -1 (a socket); -1 on end of file or
 * error. */
static int read_full(int fd, char *buf, size_t n, long off)
{
	while (n > 0) {
		long r = off < 0 ? (long)read(fd, buf, n) : syscall(__NR_pread64, fd, buf, n, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
		if (off >= 0)
			off += r;
	}
	return 0;
}

int read_spec(int fd, struct spec *out)
{
	memset(out, 0, sizeof *out);
	unsigned char header[SPEC_HEADER];
	if (read_full(fd, (char *)header, SPEC_HEADER, 0) != 0)
		return -1;
	size_t len = get32(header + 4);
	if (get32(header) != SPEC_MAGIC || len == 0 || len > SPEC_MAX_PAYLOAD)
		return -1;
	char *payload = map_spec(len, out);
	char past;
	if (payload == NULL || read_full(fd, payload, len, SPEC_HEADER) != 0 ||
	    read_full(fd, &past, 1, (long)(SPEC_HEADER + len)) == 0 || parse_mapped(header, payload, out) != 0)
		return -1;
	/* The descriptors are the options': a spec that names any is not one
	 * this runtime wrote. */
	if (out->roles != 0)
		return -1;
	for (int role = 0; role < SPEC_ROLES; role++)
		out->fd[role] = -1;
	return 0;
}

/* recv_header reads the header and the descriptors sent with it. It
 * returns the number of descriptors (placed in fds), 0 at end of file
 * before any byte (the runtime let the spare go), or -1. */
static int recv_header(int sock, unsigned char *header, int *fds, int *nfds)
{
	union {
		char buf[SP_CMSG_LEN(SPEC_MAX_FDS * sizeof(int)) + 16];
		size_t align;
	} control;
	struct sp_iovec iov = {.base = header, .len = SPEC_HEADER};
	struct sp_msghdr msg = {.iov = &iov, .iovlen = 1, .control = control.buf, .controllen = sizeof control.buf};
	long n;
	do
		n = syscall(__NR_recvmsg, sock, &msg, SP_MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*nfds = 0;
	if (n <= 0)
		return n == 0 ? 0 : -1;
	/* The descriptors first: whatever else is wrong, they are closed. */
	for (size_t off = 0; off + sizeof(struct sp_cmsghdr) <= msg.controllen;) {
		struct sp_cmsghdr *c = (struct sp_cmsghdr *)(control.buf + off);
		if (c->len < SP_CMSG_LEN(0) || off + c->len > msg.controllen)
			break;
		if (c->level == SP_SOL_SOCKET && c->type == SP_SCM_RIGHTS) {
			size_t k = (c->len - SP_CMSG_LEN(0)) / sizeof(int);
			const char *data = (const char *)c + SP_CMSG_LEN(0);
			for (size_t i = 0; i < k; i++) {
				int fd;
				memcpy(&fd, data + i * sizeof(int), sizeof fd);
				if (*nfds < SPEC_MAX_FDS)
					fds[(*nfds)++] = fd;
				else
					close(fd);
			}
		}
		off += SP_CMSG_ALIGN(c->len);
	}
	if (msg.flags & SP_MSG_CTRUNC)
		return -1;
	if ((size_t)n < SPEC_HEADER && read_full(sock, (char *)header + n, SPEC_HEADER - (size_t)n, -1) != 0)
		return -1;
	return 1;
}

int recv_spec(int sock, struct spec *out, int *fds, int *nfds)
{
	unsigned char header[SPEC_HEADER];
	int r = recv_header(sock, header, fds, nfds);
	if (r <= 0)
		return r == 0 ? 0 : -1;
	size_t len = get32(header + 4);
	if (get32(header) != SPEC_MAGIC || len == 0 || len > SPEC_MAX_PAYLOAD)
		return -1;
	/* The program's argv and environment point into the spec's pages
	 * until its exec; release_spec unmaps them after it. */
	char *payload = map_spec(len, out);
	if (payload == NULL || read_full(sock, payload, len, -1) != 0 || parse_mapped(header, payload, out) != 0)
		return -1;
	if (popcount(out->roles) != *nfds)
		return -1;
	int k = 0;
	for (int role = 0; role < SPEC_ROLES; role++)
		out->fd[role] = (out->roles & (1U << role)) ? fds[k++] : -1;
	return 1;
}

/* check_spec parses a message read from fd 0 (without descriptors: the
 * roles are not checked against any) and writes what it found to fd 1:
 * "ok ROLES FLAGS ARGC ENVC\n" and the strings, each ended by its NUL;
 * or exits 2 for a refused one. It is the spec parser's fuzzing seam
 * (internal/spawnhelper's FuzzSpareSpec), and starts nothing. */
void check_spec(void)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		_exit(FAIL_STATUS);
	for (;;) {
		if (len == cap) {
			char *more = mremap(buf, cap, cap * 2, MREMAP_MAYMOVE);
			if (more == MAP_FAILED)
				_exit(FAIL_STATUS);
			buf = more, cap *= 2;
		}
		ssize_t n = read(0, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			_exit(FAIL_STATUS);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len < SPEC_HEADER || get32((unsigned char *)buf + 4) != len - SPEC_HEADER)
		_exit(2);
	size_t plen = len - SPEC_HEADER;
	char **ptrs = mmap(NULL, spec_ptrs(plen) * sizeof(char *), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptrs == MAP_FAILED)
		_exit(FAIL_STATUS);
	struct spec s;
	if (plen == 0 || parse_spec((unsigned char *)buf, buf + SPEC_HEADER, ptrs, &s) != 0)
		_exit(2);
	char line[96];
	int n = snprintf(line, sizeof line, "ok %d %d %d %d\n", (int)s.roles, (int)s.flags, (int)s.argc, (int)s.envc);
	if (write(1, line, (size_t)n) != n)
		_exit(FAIL_STATUS);
	const char *first[2] = {s.dir, s.prog};
	for (int i = 0; i < 2; i++)
		if (write(1, first[i], strlen(first[i]) + 1) < 0)
			_exit(FAIL_STATUS);
	for (char **p = s.argv; *p != NULL; p++)
		if (write(1, *p, strlen(*p) + 1) < 0)
			_exit(FAIL_STATUS);
	for (char **p = s.envp; *p != NULL; p++)
		if (write(1, *p, strlen(*p) + 1) < 0)
			_exit(FAIL_STATUS);
	_exit(0);
}

#endif
