/*
 * rt_linux.c: the helper's own small C runtime on Linux (see rt.h for why):
 * the entry point, system calls for x86_64 and aarch64, and the handful of
 * library functions the helper calls. Everything here may run in the
 * program's process before its exec (CLONE_VM: the supervisor's memory),
 * so nothing keeps state but errno (and strerror's buffer for an error it
 * has no words for, used once just before the helper exits).
 */
#ifdef __linux__

#include "rt.h"

int errno;
char **environ;

int main(int argc, char **argv);

#if defined(__x86_64__)

long sp_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The kernel starts the process here with argc, argv and the environment
 * on the stack. */
__asm__(".text\n"
	".global _start\n"
	".type _start,@function\n"
	"_start:\n"
	"	xor %ebp,%ebp\n"
	"	mov %rsp,%rdi\n"
	"	and $-16,%rsp\n"
	"	call sp_start\n"
	"	hlt\n");

/* A signal handler returns through rt_sigreturn, which x86_64 leaves to
 * the C library (SA_RESTORER). */
__asm__(".text\n"
	".global sp_restore_rt\n"
	".type sp_restore_rt,@function\n"
	"sp_restore_rt:\n"
	"	mov $15,%eax\n"
	"	syscall\n"
	"	hlt\n");
#define SP_SA_RESTORER 0x04000000UL

/* long sp_clone_raw(fn, stack, flags, arg): the child starts on stack with
 * fn and arg pushed, calls fn(arg) and exits with its result. */
__asm__(".text\n"
	".global sp_clone_raw\n"
	".type sp_clone_raw,@function\n"
	"sp_clone_raw:\n"
	"	and $-16,%rsi\n"
	"	sub $16,%rsi\n"
	"	mov %rcx,8(%rsi)\n"
	"	mov %rdi,(%rsi)\n"
	"	mov %rdx,%rdi\n"
	"	xor %edx,%edx\n"
	"	xor %r10d,%r10d\n"
	"	xor %r8d,%r8d\n"
	"	mov $56,%eax\n" /* clone(flags, stack, NULL, NULL, 0) */
	"	syscall\n"
	"	test %rax,%rax\n"
	"	jnz 1f\n"
	"	xor %ebp,%ebp\n"
	"	pop %rax\n"
	"	pop %rdi\n"
	"	call *%rax\n"
	"	mov %eax,%edi\n"
	"	mov $60,%eax\n" /* exit */
	"	syscall\n"
	"	hlt\n"
	"1:	ret\n");

#elif defined(__aarch64__)

long sp_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory", "cc");
	return x0;
}

__asm__(".text\n"
	".global _start\n"
	".type _start,%function\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, sp\n"
	"	bl sp_start\n"
	"	brk #0\n");

/* aarch64 returns from a handler through the vDSO's trampoline. */
#define SP_SA_RESTORER 0UL

__asm__(".text\n"
	".global sp_clone_raw\n"
	".type sp_clone_raw,%function\n"
	"sp_clone_raw:\n"
	"	and x1, x1, #-16\n"
	"	stp x0, x3, [x1, #-16]!\n"
	"	mov x0, x2\n"
	"	mov x2, #0\n"
	"	mov x3, #0\n"
	"	mov x4, #0\n"
	"	mov x8, #220\n" /* clone(flags, stack, NULL, 0, NULL) */
	"	svc #0\n"
	"	cbnz x0, 1f\n"
	"	mov x29, #0\n"
	"	ldp x1, x0, [sp], #16\n"
	"	blr x1\n"
	"	mov x8, #93\n" /* exit */
	"	svc #0\n"
	"	brk #0\n"
	"1:	ret\n");

#else
#error "the spawn helper's runtime supports x86_64 and aarch64 Linux"
#endif

long sp_clone_raw(int (*fn)(void *), void *stack, unsigned long flags, void *arg);
__attribute__((used, noreturn)) void sp_start(long *sp);
void sp_restore_rt(void);

__attribute__((used, noreturn)) void sp_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	environ = argv + argc + 1;
	_exit(main(argc, argv));
}

static long check(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

long sp_syscall_errno(long n, long a, long b, long c, long d, long e, long f)
{
	return check(sp_syscall(n, a, b, c, d, e, f));
}

#define SYS0(n) check(sp_syscall(n, 0, 0, 0, 0, 0, 0))
#define SYS1(n, a) check(sp_syscall(n, (long)(a), 0, 0, 0, 0, 0))
#define SYS2(n, a, b) check(sp_syscall(n, (long)(a), (long)(b), 0, 0, 0, 0))
#define SYS3(n, a, b, c) check(sp_syscall(n, (long)(a), (long)(b), (long)(c), 0, 0, 0))
#define SYS4(n, a, b, c, d) check(sp_syscall(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0))

pid_t sp_clone(int (*fn)(void *), void *stack, unsigned long flags, void *arg)
{
	return (pid_t)check(sp_clone_raw(fn, stack, flags, arg));
}

int sp_sigaction_set(int sig, void (*handler)(int), unsigned long mask)
{
	struct sp_sigaction sa = {.handler = handler, .mask = mask};
	if (handler != 0 && SP_SA_RESTORER != 0) {
		sa.flags = SP_SA_RESTORER;
		sa.restorer = sp_restore_rt;
	}
	return (int)SYS4(__NR_rt_sigaction, sig, &sa, 0, sizeof sa.mask);
}

ssize_t read(int fd, void *buf, size_t n) { return SYS3(__NR_read, fd, buf, n); }
ssize_t write(int fd, const void *buf, size_t n) { return SYS3(__NR_write, fd, buf, n); }
int close(int fd) { return (int)SYS1(__NR_close, fd); }
int chdir(const char *path) { return (int)SYS1(__NR_chdir, path); }
int access(const char *path, int mode) { return (int)SYS3(__NR_faccessat, AT_FDCWD, path, mode); }
pid_t setsid(void) { return (pid_t)SYS0(__NR_setsid); }
pid_t getsid(pid_t pid) { return (pid_t)SYS1(__NR_getsid, pid); }
pid_t getpid(void) { return (pid_t)SYS0(__NR_getpid); }
pid_t getppid(void) { return (pid_t)SYS0(__NR_getppid); }
int kill(pid_t pid, int sig) { return (int)SYS2(__NR_kill, pid, sig); }
int munmap(void *addr, size_t len) { return (int)SYS2(__NR_munmap, addr, len); }
int mprotect(void *addr, size_t len, int prot) { return (int)SYS3(__NR_mprotect, addr, len, prot); }
int clock_gettime(int clock, struct timespec *ts) { return (int)SYS2(__NR_clock_gettime, clock, ts); }

int execve(const char *path, char *const argv[], char *const envp[])
{
	return (int)SYS3(__NR_execve, path, argv, envp);
}

int dup2(int from, int to)
{
	if (from == to) /* dup3 refuses it; dup2 checks the descriptor */
		return fcntl(from, F_GETFD) < 0 ? -1 : to;
	return (int)SYS3(__NR_dup3, from, to, 0);
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	return (pid_t)SYS4(__NR_wait4, pid, status, options, 0);
}

int ppoll(struct pollfd *fds, unsigned long n, const struct timespec *timeout, const unsigned long *mask)
{
	return (int)check(sp_syscall(__NR_ppoll, (long)fds, (long)n, (long)timeout, (long)mask, sizeof *mask, 0));
}

int getrlimit(int resource, struct rlimit *rl) { return (int)SYS4(__NR_prlimit64, 0, resource, 0, rl); }
int setrlimit(int resource, const struct rlimit *rl) { return (int)SYS4(__NR_prlimit64, 0, resource, rl, 0); }

void *mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	long r = sp_syscall(__NR_mmap, (long)addr, (long)len, prot, flags, fd, off);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return MAP_FAILED;
	}
	return (void *)r;
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags)
{
	long r = sp_syscall(__NR_mremap, (long)old, (long)old_len, (long)new_len, flags, 0, 0);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return MAP_FAILED;
	}
	return (void *)r;
}

void _exit(int status)
{
	for (;;)
		sp_syscall(__NR_exit_group, status, 0, 0, 0, 0, 0);
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n] != '\0')
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n > 0; n--, a++, b++) {
		if (*a != *b || *a == '\0')
			return (unsigned char)*a - (unsigned char)*b;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (*s == '\0')
			return 0;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = 0;
	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

/* The compiler may emit calls to these four for copies and zeroing of
 * structures, so they must exist under these names. */
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n-- > 0)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d < s) {
		while (n-- > 0)
			*d++ = *s++;
	} else {
		while (n-- > 0)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	while (n-- > 0)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n > 0; n--, x++, y++) {
		if (*x != *y)
			return *x - *y;
	}
	return 0;
}

int tolower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

long strtol(const char *s, char **end, int base)
{
	(void)base; /* always 10 */
	const char *p = s;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	int neg = 0;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	const char *digits = p;
	unsigned long v = 0, limit = neg ? (unsigned long)__LONG_MAX__ + 1 : (unsigned long)__LONG_MAX__;
	int over = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (limit - d) / 10)
			over = 1;
		else
			v = v * 10 + d;
	}
	if (p == digits) {
		if (end != 0)
			*end = (char *)s;
		return 0;
	}
	if (end != 0)
		*end = (char *)p;
	if (over) {
		errno = ERANGE;
		return neg ? -__LONG_MAX__ - 1 : __LONG_MAX__;
	}
	return neg ? (long)(0 - v) : (long)v;
}

void sp_each_number(int dfd, void (*each)(long n, void *arg), void *arg)
{
	/* A union keeps the buffer aligned for the records. */
	union {
		struct linux_dirent64 d;
		char b[2048];
	} u;
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, u.b, sizeof u.b);
		if (n <= 0)
			return;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(u.b + off);
			off += e->d_reclen;
			char *end;
			long v = strtol(e->d_name, &end, 10);
			if (*end == '\0' && end != e->d_name)
				each(v, arg);
		}
	}
}

char *getenv(const char *name)
{
	size_t n = strlen(name);
	for (char **e = environ; e != 0 && *e != 0; e++) {
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	}
	return 0;
}

/* The errors a start can fail with, in the C library's words (the
 * runtime's own messages for the same errno read the same). */
static const struct {
	int err;
	const char *text;
} errors[] = {
	{EPERM, "Operation not permitted"},
	{ENOENT, "No such file or directory"},
	{ESRCH, "No such process"},
	{EINTR, "Interrupted system call"},
	{EIO, "Input/output error"},
	{ENXIO, "No such device or address"},
	{E2BIG, "Argument list too long"},
	{ENOEXEC, "Exec format error"},
	{EBADF, "Bad file descriptor"},
	{ECHILD, "No child processes"},
	{EAGAIN, "Resource temporarily unavailable"},
	{ENOMEM, "Cannot allocate memory"},
	{EACCES, "Permission denied"},
	{EFAULT, "Bad address"},
	{EBUSY, "Device or resource busy"},
	{EEXIST, "File exists"},
	{ENODEV, "No such device"},
	{ENOTDIR, "Not a directory"},
	{EISDIR, "Is a directory"},
	{EINVAL, "Invalid argument"},
	{ENFILE, "Too many open files in system"},
	{EMFILE, "Too many open files"},
	{ENOTTY, "Inappropriate ioctl for device"},
	{ETXTBSY, "Text file busy"},
	{EROFS, "Read-only file system"},
	{ERANGE, "Numerical result out of range"},
	{ENAMETOOLONG, "File name too long"},
	{ENOSYS, "Function not implemented"},
	{ELOOP, "Too many levels of symbolic links"},
	{ESTALE, "Stale file handle"},
	{ETIMEDOUT, "Connection timed out"},
};

const char *strerror(int err)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
		if (errors[i].err == err)
			return errors[i].text;
	}
	/* One fixed buffer: the helper calls this once, just before it exits. */
	static char unknown[32];
	snprintf(unknown, sizeof unknown, "Unknown error %d", err);
	return unknown;
}

/* out is vsnprintf's output: it counts every byte and stores what fits. */
struct out {
	char *buf;
	size_t size, n;
};

static void put(struct out *o, char c)
{
	if (o->n + 1 < o->size)
		o->buf[o->n] = c;
	o->n++;
}

int vsnprintf(char *buf, size_t size, const char *format, va_list ap)
{
	struct out o = {buf, size, 0};
	for (const char *f = format; *f != '\0'; f++) {
		if (*f != '%') {
			put(&o, *f);
			continue;
		}
		f++;
		long prec = -1;
		if (*f == '.') {
			prec = 0;
			for (f++; *f >= '0' && *f <= '9'; f++)
				prec = prec * 10 + (*f - '0');
		}
		switch (*f) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (s == 0)
				s = "(null)";
			for (long i = 0; s[i] != '\0' && (prec < 0 || i < prec); i++)
				put(&o, s[i]);
			break;
		}
		case 'd': {
			long v = va_arg(ap, int);
			unsigned long u = v < 0 ? 0 - (unsigned long)v : (unsigned long)v;
			char digits[24];
			int k = 0;
			do {
				digits[k++] = (char)('0' + u % 10);
				u /= 10;
			} while (u != 0);
			if (v < 0)
				put(&o, '-');
			while (k > 0)
				put(&o, digits[--k]);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default: /* not used by the helper: shown as written */
			put(&o, '%');
			if (*f == '\0')
				f--;
			else
				put(&o, *f);
		}
	}
	if (size > 0)
		buf[o.n < size ? o.n : size - 1] = '\0';
	return (int)o.n;
}

int snprintf(char *buf, size_t size, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = vsnprintf(buf, size, format, ap);
	va_end(ap);
	return n;
}

#endif
