/*
 * shellport-spawn-helper starts a program for the shellport runtime.
 *
 *   shellport-spawn-helper [OPTION...] [--] DIR PROGRAM [ARG...]
 *
 * In every mode the program starts as the leader of a new session, in DIR
 * (empty: the current directory), with every signal at its default action
 * and none blocked, with only descriptors 0, 1 and 2 open (and 3 with
 * --fd3), from PROGRAM searched in the PATH of the environment the helper
 * was given, which is the program's.
 *
 * Without --supervise (the exec shim, what macOS uses): the terminal's
 * slave side arrives as fd 3 (or --tty FD); the helper makes it the
 * controlling terminal and fds 0-2, then becomes the program. On failure it
 * writes one line, "shellport-spawn-helper: <error>", to fd 2 and exits
 * with status 127.
 *
 * With --supervise (Linux): the helper stays as the program's supervisor
 * (supervise.c) and reports on --report instead of fd 2.
 *
 * Options (descriptors are numbers the helper inherited):
 *   --supervise             fork the program and supervise it
 *   --life FD               end of file on FD kills everything
 *   --report FD             where "pid N", "error OP ERRNO" and "end" go; with
 *                           --supervise, no reader left on it kills everything
 *   --parent PID            the runtime's pid (parent-death race check)
 *   --tty FD                the terminal (shim mode: 3 unless given)
 *   --fd3 FD                give the program FD as its fd 3
 *   --argv0 NAME            the program's argv[0] (default: PROGRAM)
 *   --landlock-ruleset FD   restrict the program with this Landlock ruleset
 *   --seccomp-filter FD     and this seccomp BPF program (restrict.c)
 *   --spare FD              start as a spare: set up the supervisor, then wait
 *                           for the program's spec on the socket FD (spare.c);
 *                           DIR and PROGRAM are not given. End of file on FD
 *                           before a spec ends the spare quietly.
 *   --spec FD               with --supervise: DIR, PROGRAM, its argv and its
 *                           environment are in the file FD, from its start, as
 *                           a spare's spec without descriptors (spare.c), and
 *                           not on the command line
 *   --spawner FD            start as the spawner: fork a spare for each byte
 *                           read on the socket FD (spawner.c); needs --life 3,
 *                           FD 4 and --parent, and takes no other option,
 *                           DIR or PROGRAM
 *   --check-spec            parse a spare's spec from fd 0 and print it;
 *                           start nothing (the parser's fuzzing seam)
 *   --sweep-scan-all        find the descendants to kill by scanning all of
 *                           /proc, the fallback for kernels without
 *                           /proc/PID/task/TID/children (for tests: both
 *                           ways of finding them must kill everything)
 */
#define _GNU_SOURCE
#include "helper.h"

static const char usage[] = "usage: shellport-spawn-helper [--supervise] [--life FD] [--report FD] [--parent PID] "
			    "[--tty FD] [--fd3 FD] [--argv0 NAME] [--landlock-ruleset FD] [--seccomp-filter FD] [--sweep-scan-all] [--spare FD | --spec FD | --] DIR PROGRAM [ARG...]\n"
			    "       shellport-spawn-helper --spawner FD --life FD --parent PID";

/* say writes "shellport-spawn-helper: <text>" to fd 2, best effort. */
static void say(const char *text)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "shellport-spawn-helper: %s\n", text);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	ssize_t w = write(2, line, (size_t)n);
	(void)w;
}

static void usage_error(const struct options *o, const char *why)
{
	char text[768];
	snprintf(text, sizeof text, "%s\n%s", why, usage);
	say(text);
	if (o->report_fd >= 0) {
		char line[64];
		int n = snprintf(line, sizeof line, "error %s %d\n", step_name(STEP_USAGE), EINVAL);
		ssize_t w = write(o->report_fd, line, (size_t)n);
		(void)w;
	}
	_exit(FAIL_STATUS);
}

static int number(const char *s, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || v < 0 || v > max)
		return -1;
	return (int)v;
}

static void parse(int argc, char **argv, struct options *o)
{
	int i = 1;
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		const char *name = argv[i];
		if (strcmp(name, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(name, "--supervise") == 0) {
			o->supervise = 1;
			continue;
		}
		if (strcmp(name, "--sweep-scan-all") == 0) {
			o->sweep_scan_all = 1;
			continue;
		}
		if (strcmp(name, "--check-spec") == 0) {
			o->check_spec = 1;
			continue;
		}
		if (strcmp(name, "--argv0") == 0) {
			if (i + 1 >= argc)
				usage_error(o, "option --argv0 needs a value");
			o->argv0 = argv[++i];
			continue;
		}
		int *slot = NULL;
		if (strcmp(name, "--life") == 0)
			slot = &o->life_fd;
		else if (strcmp(name, "--report") == 0)
			slot = &o->report_fd;
		else if (strcmp(name, "--tty") == 0)
			slot = &o->tty_fd;
		else if (strcmp(name, "--fd3") == 0)
			slot = &o->fd3;
		else if (strcmp(name, "--spare") == 0)
			slot = &o->spare_fd;
		else if (strcmp(name, "--spec") == 0)
			slot = &o->spec_fd;
		else if (strcmp(name, "--spawner") == 0)
			slot = &o->spawner_fd;
		else if (strcmp(name, "--landlock-ruleset") == 0)
			slot = &o->restrict_to.landlock_fd;
		else if (strcmp(name, "--seccomp-filter") == 0)
			slot = &o->restrict_to.seccomp_fd;
		else if (strcmp(name, "--parent") != 0) {
			char why[256];
			snprintf(why, sizeof why, "unknown option %.200s", name);
			usage_error(o, why);
		}
		if (i + 1 >= argc) {
			char why[256];
			snprintf(why, sizeof why, "option %s needs a value", name);
			usage_error(o, why);
		}
		int v = number(argv[++i], INT_MAX);
		if (v < 0) {
			char why[256];
			snprintf(why, sizeof why, "option %s: %.100s is not a number", name, argv[i]);
			usage_error(o, why);
		}
		if (slot != NULL)
			*slot = v;
		else
			o->parent = (pid_t)v;
	}
	if (o->check_spec) {
#ifdef __linux__
		return;
#else
		usage_error(o, "--check-spec needs Linux");
#endif
	}
	if (o->spawner_fd >= 0) {
		if (i != argc || o->supervise || o->spare_fd >= 0 || o->life_fd < 0 || o->parent <= 0)
			usage_error(o, "--spawner takes --life and --parent only, and no DIR or PROGRAM");
		return;
	}
	if (o->spare_fd >= 0) {
		/* The spec brings DIR, PROGRAM and its arguments. */
		if (i != argc || !o->supervise || o->spec_fd >= 0)
			usage_error(o, "--spare takes no DIR or PROGRAM and needs --supervise");
		return;
	}
	if (o->spec_fd >= 0) {
		if (i != argc || !o->supervise || o->argv0 != NULL)
			usage_error(o, "--spec takes no DIR, PROGRAM or --argv0 and needs --supervise");
		return;
	}
	if (argc - i < 2)
		usage_error(o, "missing DIR or PROGRAM");
	o->dir = argv[i];
	o->prog = argv[i + 1];
	o->argv = argv + i + 1;
	if (o->argv0 != NULL)
		o->argv[0] = (char *)o->argv0;
}

/* describe turns a failed step into the shim's one-line error. */
static void describe(const struct options *o, const struct failure *f, char *out, size_t size)
{
	char err[128];
	snprintf(err, sizeof err, "%s", strerror(f->err));
	err[0] = (char)tolower((unsigned char)err[0]); /* errors are lowercase */
	switch (f->op) {
	case STEP_CHDIR:
		snprintf(out, size, "chdir \"%.512s\": %s", o->dir, err);
		break;
	case STEP_EXEC:
		snprintf(out, size, "exec \"%.512s\": %s", o->prog, err);
		break;
	case STEP_NOTFOUND:
		snprintf(out, size, "\"%.512s\": not found in PATH", o->prog);
		break;
	case STEP_CTTY:
		snprintf(out, size, "make fd %d the controlling terminal: %s", o->tty_fd, err);
		break;
	default:
		snprintf(out, size, "%s: %s", step_name(f->op), err);
	}
}

int main(int argc, char **argv)
{
	struct options o = {
		.life_fd = -1,
		.report_fd = -1,
		.tty_fd = -1,
		.fd3 = -1,
		.spare_fd = -1,
		.spec_fd = -1,
		.spawner_fd = -1,
		.restrict_to = {.landlock_fd = -1, .seccomp_fd = -1},
	};
#ifdef __linux__
	/* The runtime may exec the helper with every signal blocked (its
	 * narrow spawn, internal/spawnhelper): none is from here, as after
	 * any other exec. */
	unsigned long none = 0;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof none);
#endif
	parse(argc, argv, &o);
#ifdef __linux__
	if (o.check_spec)
		check_spec(); /* does not return */
#endif
	if (o.spawner_fd >= 0)
		spawner(&o); /* does not return */
	if (o.supervise)
		supervise(&o); /* does not return */

	if (o.tty_fd < 0)
		o.tty_fd = 3;
	struct failure f = {STEP_NONE, 0};
	prepare_and_exec(&o, 0, -1, &f);
	char text[768];
	describe(&o, &f, text, sizeof text);
	say(text);
	return FAIL_STATUS;
}
