/*
 * shellport-bash-turn.so: the persistent shell's driver turn as a bash
 * loadable builtin, __sp_turn (issue 16).
 *
 * The driver loop (internal/tools/persistent/boot.go) does the same work
 * whether or not this is loaded; loaded, the two steps of each turn that
 * cost bash the most run here instead of as shell commands:
 *
 *   __sp_turn r   settle and report: unsets the loop's variables, saves
 *                 and clears the command's DEBUG trap and xtrace (what
 *                 the eval must restore goes into __sp_r), checks that
 *                 eval is still a builtin, draws a fresh token, and
 *                 writes the record "t<token> <status>" NUL to the return
 *                 FIFO and the frame to the terminal;
 *   __sp_turn w   the wait: takes a wake byte from the control FIFO and
 *                 reads the command into __sp_c, from the inbox to its end
 *                 (wake byte 0) or from the control FIFO up to a NUL (1),
 *                 dropping NULs as bash's read does; then sets __sp_a=1.
 *
 * A turn with them costs bash about 120,000 instructions and 25 system
 * calls, against 386,000 and 56 as shell commands (trap -p and its
 * redirection, three printf, two read, the tests around them, the frame's
 * redirection), and about 60 µs of CPU against 130 to 150
 * (BenchmarkShellInstructionsPerCommand, BenchmarkShellSyscallsPerCommand,
 * BenchmarkShellCPUPerCommand).
 *
 * Nothing here holds state between turns but a buffer (and the fallback
 * generator's word). The status and the count are what the loop's own
 * redirection has just assigned (__sp_s, __sp_n), read back and refused
 * unless they are plain decimal numbers; a count a command tampered with
 * is the runtime's to catch, as on the other paths.
 * Every bash function used is looked up at load time, so a bash without
 * one refuses the load and the loop runs as shell commands. The
 * descriptors are the loop's (boot.go: fdInbox and on).
 *
 * Built without the C library's start files (-nostdlib): read, write,
 * syscall and the allocator come from the C library bash itself uses, so
 * one file serves glibc and musl. Linux only; bash 4.4 or later.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define WEAK __attribute__((weak))

/* The loop's descriptors (boot.go). */
enum { FD_INBOX = 10, FD_CTL = 11, FD_RET = 12, FD_TTY = 13 };

/* bash's loadable builtin interface (builtins.h, command.h), unchanged
 * since bash 2.0. */
typedef struct word_desc {
	char *word;
	int flags;
} WORD_DESC;
typedef struct word_list {
	struct word_list *next;
	WORD_DESC *word;
} WORD_LIST;
struct builtin {
	const char *name;
	int (*function)(WORD_LIST *);
	int flags;
	const char *const *long_doc;
	const char *short_doc;
	char *handle;
};
#define BUILTIN_ENABLED 0x01

/* The start of variables.h's SHELL_VAR, as far as its attributes. */
struct shell_var {
	char *name;
	char *value;
	char *exportstr;
	void *dynamic_value;
	void *assign_func;
	int attributes;
};
#define ATT_READONLY 0x0000002
#define ATT_NOUNSET 0x0002000
#define ATT_NOASSIGN 0x0004000

/* bash's own functions and variables, exported by every bash that can
 * load builtins. Weak, so that a missing one is a refused load (see
 * __sp_turn_builtin_load), not a crash at its first use. */
extern struct shell_var *bind_variable(const char *, char *, int) WEAK;
extern struct shell_var *find_variable_noref(const char *) WEAK;
extern int unbind_variable_noref(const char *) WEAK;
extern char *get_string_value(const char *) WEAK;
extern char *signal_name(int) WEAK;
extern char *trap_list[] WEAK;
extern void restore_default_signal(int) WEAK;
extern char *sh_single_quote(const char *) WEAK;
extern int change_flag(int, int) WEAK;
extern void set_shellopts(void) WEAK;
extern int echo_command_at_execute WEAK;
extern void *find_shell_builtin(char *) WEAK;
extern void check_signals_and_traps(void) WEAK;

/* A trap_list entry: no trap (SIG_DFL) and an ignored one (SIG_IGN). */
#define TRAP_DEFAULT ((char *)0)
#define TRAP_IGNORE ((char *)1)

/* change_flag's "off". */
#define FLAG_OFF '+'

/* The index of the DEBUG trap in trap_list: NSIG as bash was built,
 * found by name at load time. */
static int debug_trap = -1;

/* The command being read; kept between turns, given back when large. */
static char *buf;
static size_t cap;
#define KEEP_BYTES (1 << 20)

/* A fallback for the token's random half where getrandom is refused. */
static uint64_t spare_state;

static int all_present(void)
{
	return bind_variable && find_variable_noref && unbind_variable_noref && get_string_value &&
	       signal_name && trap_list && restore_default_signal &&
	       sh_single_quote && change_flag && set_shellopts && &echo_command_at_execute &&
	       find_shell_builtin && check_signals_and_traps;
}

/* Called by enable -f (bash 4.4 and later) after loading: 0 refuses the
 * load, and the loop then runs as shell commands. */
EXPORT int __sp_turn_builtin_load(char *name)
{
	(void)name;
	if (!all_present())
		return 0;
	for (int i = 1; i < 1024; i++) {
		const char *n = signal_name(i);
		if (n && strcmp(n, "DEBUG") == 0) {
			debug_trap = i;
			return 1;
		}
	}
	return 0;
}

/* write_all writes n bytes, through interruptions. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* decimal parses a variable's value as an unsigned decimal. */
static int decimal(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (s == NULL || *s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static char *put_hex(char *p, uint64_t v, int digits)
{
	for (int i = digits - 1; i >= 0; i--) {
		p[i] = "0123456789ABCDEF"[v & 15];
		v >>= 4;
	}
	return p + digits;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* random64 is 64 bits from the kernel's generator, as $SRANDOM is; where
 * getrandom is refused (an old kernel, a filter), a generator seeded from
 * the clock, so the token still differs from turn to turn. */
static uint64_t random64(void)
{
	uint64_t r;
	if (syscall(SYS_getrandom, &r, sizeof r, 1 /* GRND_NONBLOCK */) == (long)sizeof r)
		return r;
	if (spare_state == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		spare_state = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)&r;
		spare_state |= 1;
	}
	spare_state ^= spare_state << 13;
	spare_state ^= spare_state >> 7;
	spare_state ^= spare_state << 17;
	return spare_state;
}

/* assigned says whether bind_variable really assigned: it returns the
 * variable even when it is read-only and refused the value. */
static int assigned(const struct shell_var *v)
{
	return v != NULL && (v->attributes & (ATT_READONLY | ATT_NOASSIGN)) == 0;
}

/* drop unsets a loop variable itself, as unset -n does a nameref and
 * unset -v anything else: whatever a command made of it (an attribute
 * such as -u, -i or export, an array, a nameref) goes, and a nameref's
 * target stays. Like unset, it refuses a read-only variable. */
static int drop(const char *name)
{
	struct shell_var *v = find_variable_noref(name);
	if (v != NULL && (v->attributes & (ATT_READONLY | ATT_NOUNSET)) != 0)
		return -1;
	if (v != NULL)
		unbind_variable_noref(name);
	return 0;
}

/* settle unsets the loop's variables, saves what the eval must restore
 * before the command, the DEBUG trap (as trap -p prints it) and xtrace,
 * into __sp_r, and turns both off for the loop. */
static int settle(void)
{
	static const char trap_head[] = "builtin trap -- ";
	static const char trap_tail[] = " DEBUG;";
	static const char xtrace[] = "builtin set -x;";
	if (drop("__sp_c") != 0 || drop("__sp_r") != 0)
		return -1;
	char *quoted = NULL;
	const char *trap = NULL;
	char *t = trap_list[debug_trap];
	if (t != TRAP_DEFAULT) {
		if (t == TRAP_IGNORE) {
			trap = "''";
		} else {
			quoted = sh_single_quote(t);
			if (quoted == NULL)
				return -1;
			trap = quoted;
		}
		restore_default_signal(debug_trap);
	}
	int traced = echo_command_at_execute != 0;
	if (traced) {
		change_flag('x', FLAG_OFF);
		set_shellopts();
	}
	if (trap == NULL && !traced)
		return 0;
	size_t n = (trap ? sizeof trap_head - 1 + strlen(trap) + sizeof trap_tail - 1 : 0) +
		   (traced ? sizeof xtrace - 1 : 0);
	char *restore = malloc(n + 1);
	if (restore == NULL) {
		free(quoted);
		return -1;
	}
	char *p = restore;
	if (trap) {
		p = put(p, trap_head, sizeof trap_head - 1);
		p = put(p, trap, strlen(trap));
		p = put(p, trap_tail, sizeof trap_tail - 1);
	}
	if (traced)
		p = put(p, xtrace, sizeof xtrace - 1);
	*p = '\0';
	int ok = assigned(bind_variable("__sp_r", restore, 0));
	free(restore);
	free(quoted);
	return ok ? 0 : -1;
}

/* report is "__sp_turn r". */
static int report(void)
{
	uint64_t status, count;
	if (settle() != 0)
		return 1;
	if (find_shell_builtin("eval") == NULL)
		return 1; /* disabled: the loop could run no command */
	if (decimal(get_string_value("__sp_s"), &status) != 0 || status > 255 ||
	    decimal(get_string_value("__sp_n"), &count) != 0)
		return 1;
	char token[32];
	put_hex(put_hex(token, random64(), 16), count, 16);

	char record[1 + 32 + 1 + 3 + 1], *p = record;
	*p++ = 't';
	p = put(p, token, sizeof token);
	*p++ = ' ';
	if (status >= 100)
		*p++ = (char)('0' + status / 100);
	if (status >= 10)
		*p++ = (char)('0' + status / 10 % 10);
	*p++ = (char)('0' + status % 10);
	*p++ = '\0';
	if (write_all(FD_RET, record, (size_t)(p - record)) != 0)
		return 1;

	char frame[4 + 32 + 2];
	p = put(frame, "\033_SP", 4);
	p = put(p, token, sizeof token);
	p = put(p, "\033\\", 2);
	return write_all(FD_TTY, frame, (size_t)(p - frame)) != 0;
}

/* room makes room for n more bytes and a NUL in buf. */
static int room(size_t len, size_t n)
{
	if (len + n + 1 <= cap)
		return 0;
	size_t c = cap ? cap : 4096;
	while (c < len + n + 1)
		c *= 2;
	char *nb = realloc(buf, c);
	if (nb == NULL)
		return -1;
	buf = nb;
	cap = c;
	return 0;
}

/* read_some is read(2) through signals: a trapped signal's trap runs
 * here, as it would in the read builtin, and the read goes on. */
static ssize_t read_some(int fd, char *p, size_t n)
{
	for (;;) {
		ssize_t r = read(fd, p, n);
		if (r >= 0 || errno != EINTR)
			return r;
		check_signals_and_traps();
	}
}

/* wait_for_command is "__sp_turn w". */
static int wait_for_command(void)
{
	char wake;
	if (read_some(FD_CTL, &wake, 1) != 1)
		return 1;
	size_t len = 0;
	if (wake == '0') {
		/* The inbox to its end: the runtime appends one command and its NUL per call. */
		for (;;) {
			if (room(len, 65536) != 0)
				return 1;
			ssize_t r = read_some(FD_INBOX, buf + len, 65536);
			if (r < 0)
				return 1;
			if (r == 0)
				break;
			len += (size_t)r;
		}
	} else if (wake == '1') {
		/* The control FIFO up to the NUL, a byte at a time: what follows is not ours. */
		for (;;) {
			if (room(len, 1) != 0)
				return 1;
			ssize_t r = read_some(FD_CTL, buf + len, 1);
			if (r != 1)
				return 1;
			if (buf[len] == '\0')
				break;
			len++;
		}
	} else {
		return 1;
	}
	size_t kept = 0;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\0')
			buf[kept++] = buf[i];
	}
	buf[kept] = '\0';
	int ok = assigned(bind_variable("__sp_c", buf, 0)) && assigned(bind_variable("__sp_a", "1", 0));
	if (cap > KEEP_BYTES) {
		free(buf);
		buf = NULL;
		cap = 0;
	}
	return ok ? 0 : 1;
}

static int turn(WORD_LIST *args)
{
	if (debug_trap < 0 || args == NULL || args->next != NULL || args->word == NULL)
		return 2;
	const char *step = args->word->word;
	if (strcmp(step, "r") == 0)
		return report();
	if (strcmp(step, "w") == 0)
		return wait_for_command();
	return 2;
}

static const char *const turn_doc[] = {
	"shellport's persistent shell: one step of the driver loop's turn.",
	"",
	"r reports the last command's end; w waits for the next command.",
	"Only the loop calls it.",
	NULL,
};

EXPORT struct builtin __sp_turn_struct = {
	"__sp_turn", turn, BUILTIN_ENABLED, turn_doc, "__sp_turn r|w", NULL,
};
