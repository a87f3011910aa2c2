/*
 * rt.h: the C library functions the helper uses.
 *
 * On Linux the helper is built without a C library (-nostdlib -static,
 * with rt_linux.c): a supervisor runs beside every live session and starts
 * every one-shot command, and a static glibc costs each of them its
 * start-up (CPU feature probing, tunables, IRELATIVE relocations, a larger
 * image to map: about 0.2 ms of CPU per spawn on a virtual machine) and
 * about 30 KB of private memory for as long as the session lives
 * (issue 16). What the helper needs is small: system calls, a few string
 * functions, a formatter for its report lines. rt_linux.c provides exactly
 * that, under the usual names, for x86_64 and aarch64; the kernel's own
 * headers give the constants and structures.
 *
 * Elsewhere (the macOS exec shim) the system's C library is used.
 */
#ifndef SHELLPORT_RT_H
#define SHELLPORT_RT_H

#ifdef __linux__

#include <stdarg.h>
#include <stddef.h>

#include <asm/ioctls.h>
#include <asm/signal.h>
#include <asm/unistd.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/limits.h>
#include <linux/mman.h>
#include <linux/poll.h>
#include <linux/prctl.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/time.h>
#include <linux/types.h>
#include <linux/wait.h>

typedef int pid_t;
typedef long ssize_t;

#define INT_MAX __INT_MAX__
#define MAP_FAILED ((void *)-1)
#define F_OK 0
#define STDERR_FILENO 2

/* The process's error number: set by every failing call below, as the C
 * library's errno is. The helper is single-threaded; the program's
 * process, which shares its memory until the exec, runs while the
 * supervisor is suspended. */
extern int errno;
extern char **environ;

/* The system call numbers under the C library's names (syscall(2)). */
#define SYS_close_range __NR_close_range
#define SYS_getdents64 __NR_getdents64
#define SYS_landlock_restrict_self __NR_landlock_restrict_self
#define SYS_pidfd_open __NR_pidfd_open
#define SYS_pidfd_send_signal __NR_pidfd_send_signal
#define SYS_rt_sigaction __NR_rt_sigaction
#define SYS_rt_sigprocmask __NR_rt_sigprocmask

/* The kernel's msghdr and cmsghdr (the C library's layout on Linux), for
 * the spare's spec (spare.c) and the spawner's replies (spawner.c). */
struct sp_iovec {
	void *base;
	size_t len;
};
struct sp_msghdr {
	void *name;
	int namelen;
	struct sp_iovec *iov;
	size_t iovlen;
	void *control;
	size_t controllen;
	int flags;
};
struct sp_cmsghdr {
	size_t len;
	int level;
	int type;
};
#define SP_SOL_SOCKET 1
#define SP_SCM_RIGHTS 1
#define SP_MSG_CTRUNC 0x8
#define SP_MSG_CMSG_CLOEXEC 0x40000000
#define SP_CMSG_ALIGN(n) (((n) + sizeof(size_t) - 1) & ~(sizeof(size_t) - 1))
#define SP_CMSG_LEN(n) (SP_CMSG_ALIGN(sizeof(struct sp_cmsghdr)) + (n))

/* sp_syscall makes system call n with six arguments; the result is the
 * kernel's: -errno on failure. */
long sp_syscall(long n, long a, long b, long c, long d, long e, long f);
/* syscall is syscall(2): -1 and errno on failure. Arguments beyond the
 * call's are passed as zeros. */
long sp_syscall_errno(long n, long a, long b, long c, long d, long e, long f);
#define sp_syscall7(n, a, b, c, d, e, f, ...) \
	sp_syscall_errno((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define syscall(...) sp_syscall7(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

/* The wait status macros of <sys/wait.h>. */
#define WEXITSTATUS(s) (((s) & 0xff00) >> 8)
#define WTERMSIG(s) ((s) & 0x7f)
#define WIFEXITED(s) (WTERMSIG(s) == 0)
#define WIFSIGNALED(s) (((signed char)(((s) & 0x7f) + 1) >> 1) > 0)

/* The kernel's struct sigaction for rt_sigaction, the same on x86_64 and
 * aarch64 (64 signals in one word). */
struct sp_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};
/* sp_sigaction_set installs handler for sig (SIG_DFL: 0) with mask
 * blocked while it runs; on x86_64 the return trampoline is rt_linux.c's. */
int sp_sigaction_set(int sig, void (*handler)(int), unsigned long mask);
#define SP_SIGBIT(sig) (1UL << ((sig) - 1))

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};
/* sp_each_number calls each(n, arg) for every entry of the directory open
 * at dfd whose name is a decimal number (the descriptors of /proc/self/fd,
 * the threads of /proc/PID/task, the processes of /proc), in the kernel's
 * order. each may remove entries (close a descriptor): the kernel resumes
 * the listing from the directory's offset on every call. */
void sp_each_number(int dfd, void (*each)(long n, void *arg), void *arg);

/* sp_clone runs fn(arg) in a new process on stack (its highest address),
 * created with flags; it returns the child's pid, or -1 and errno. */
pid_t sp_clone(int (*fn)(void *), void *stack, unsigned long flags, void *arg);

ssize_t read(int fd, void *buf, size_t n);
ssize_t write(int fd, const void *buf, size_t n);
/* The calls the C library declares variadic are system calls here, with
 * the arguments not given passed as zeros. */
static inline int sp_int(long v) { return (int)v; }
#define open(...) sp_int(syscall(__NR_openat, AT_FDCWD, __VA_ARGS__))
#define fcntl(...) sp_int(syscall(__NR_fcntl, __VA_ARGS__))
#define ioctl(...) sp_int(syscall(__NR_ioctl, __VA_ARGS__))
#define prctl(...) sp_int(syscall(__NR_prctl, __VA_ARGS__))
int close(int fd);
int dup2(int from, int to);
int chdir(const char *path);
int access(const char *path, int mode);
int execve(const char *path, char *const argv[], char *const envp[]);
pid_t setsid(void);
pid_t getsid(pid_t pid);
pid_t getpid(void);
pid_t getppid(void);
int kill(pid_t pid, int sig);
pid_t waitpid(pid_t pid, int *status, int options);
int ppoll(struct pollfd *fds, unsigned long n, const struct timespec *timeout, const unsigned long *mask);
int clock_gettime(int clock, struct timespec *ts);
int getrlimit(int resource, struct rlimit *rl);
int setrlimit(int resource, const struct rlimit *rl);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
void *mremap(void *old, size_t old_len, size_t new_len, int flags);
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);
__attribute__((noreturn)) void _exit(int status);

size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int tolower(int c);
/* strtol parses base 10 only, which is all the helper reads. */
long strtol(const char *s, char **end, int base);
char *getenv(const char *name);
/* strerror knows the errors the helper can meet; others read "error N". */
const char *strerror(int err);
/* snprintf understands %s, %.Ns, %d and %%. */
int snprintf(char *buf, size_t size, const char *format, ...);
int vsnprintf(char *buf, size_t size, const char *format, va_list ap);

#else

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

#endif

#endif
