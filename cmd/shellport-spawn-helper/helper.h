/*
 * shellport-spawn-helper: the one executable through which shellport starts
 * every process. See main.c for the command line and docs/ARCHITECTURE.md
 * ("The supervisor") for the design; this header is what the source files
 * share (rt.h: the C library functions they use).
 */
#ifndef SHELLPORT_SPAWN_HELPER_H
#define SHELLPORT_SPAWN_HELPER_H

#include "rt.h"

/* FAIL_STATUS is the exit status of a failed start, as a shell uses 127 for
 * a command it could not run. */
#define FAIL_STATUS 127

/* What the program is restricted to before it runs: the sandbox seam
 * (restrict.c). The runtime builds the policy; the helper only applies it.
 * -1 means "not given". */
struct restrictions {
	int landlock_fd; /* a Landlock ruleset (landlock_create_ruleset) */
	int seccomp_fd;  /* a classic BPF program: struct sock_filter[], read to EOF */
};

/* The parsed command line. Descriptors are -1 when not given. */
struct options {
	int supervise;    /* --supervise: fork the program and supervise it (Linux) */
	int sweep_scan_all; /* --sweep-scan-all: find descendants in all of /proc (tests) */
	int spare_fd;     /* --spare FD: wait for the program's spec on this socket (spare.c) */
	int spec_fd;      /* --spec FD: the program's spec, in a file from its start (spare.c) */
	int spawner_fd;   /* --spawner FD: fork a spare per request on this socket (spawner.c) */
	int check_spec;   /* --check-spec: parse a spec from fd 0 and print it (fuzzing) */
	int life_fd;      /* --life FD: end of file here means the runtime is gone */
	int report_fd;    /* --report FD: "pid N", "error OP ERRNO", "end" lines */
	int tty_fd;       /* --tty FD: the terminal (shim mode: always 3) */
	int fd3;          /* --fd3 FD: given to the program as its fd 3 */
	pid_t parent;     /* --parent PID: the runtime's pid, 0 if not given */
	const char *argv0; /* --argv0 NAME: the program's argv[0] (default PROGRAM) */
	const char *dir;   /* "" keeps the current directory */
	const char *prog;  /* PROGRAM: a path, or a name searched in PATH */
	char **argv;       /* the program's argv (NULL-terminated) */
	struct restrictions restrict_to;
};

/* A failed step of preparing the program: which one and the errno. */
struct failure {
	int op;
	int err;
};

/* The steps of prepare_and_exec, named in reports ("error chdir 2"). */
enum step {
	STEP_NONE = 0,
	STEP_SETSID,
	STEP_PDEATHSIG,
	STEP_CTTY,
	STEP_DUP2,
	STEP_FD3,
	STEP_CHDIR,
	STEP_SIGNALS,
	STEP_RESTRICT,
	STEP_CLOSE,
	STEP_EXEC,
	STEP_NOTFOUND,
	STEP_FORK,
	STEP_USAGE,
	STEP_SETUP,
	STEP_PARENT,
};

const char *step_name(int op);

/* A spare's spec (spare.c): what the runtime decides per spawn, sent to a
 * supervisor that was started before it was needed. */
#define SPEC_MAGIC 0x31535053u /* "SPS1" */
#define SPEC_HEADER 24
#define SPEC_MAX_PAYLOAD (64u << 20)
enum spec_role {
	SPEC_STDIN,
	SPEC_STDOUT,
	SPEC_STDERR,
	SPEC_TTY,
	SPEC_FD3,
	SPEC_LANDLOCK,
	SPEC_SECCOMP,
	SPEC_ROLES,
};
#define SPEC_MAX_FDS SPEC_ROLES
#define SPEC_FD_ALL ((1u << SPEC_ROLES) - 1)
#define SPEC_FLAG_SWEEP_SCAN_ALL 1u
#define SPEC_FLAG_ALL SPEC_FLAG_SWEEP_SCAN_ALL
struct spec {
	unsigned roles, flags;
	size_t argc, envc;
	const char *dir, *prog;
	char **argv, **envp; /* NULL-terminated */
	int fd[SPEC_ROLES];  /* -1 where the role's bit is not set */
	void *mem;           /* the pages the strings are in (release_spec) */
	size_t mem_size;
};
/* parse_spec checks a spec's header and payload (the payload length is the
 * header's) and fills out, its string arrays in ptrs (spec_ptrs(length)
 * pointers). It returns 0, or -1 for a refused spec. */
int parse_spec(const unsigned char *header, char *payload, char **ptrs, struct spec *out);
size_t spec_ptrs(size_t len);
/* recv_spec receives one spec and its descriptors on sock. It returns 1,
 * 0 at end of file before any byte, or -1; the descriptors received are
 * in fds (*nfds of them) whatever it returns. */
int recv_spec(int sock, struct spec *out, int *fds, int *nfds);
/* read_spec reads one spec from the file fd (--spec), from its start: the
 * same message, with no descriptors (the options give them). It returns 0,
 * or -1 for one it cannot read or refuses. */
int read_spec(int fd, struct spec *out);
/* release_spec unmaps a spec's strings: once the program has been exec'd,
 * nothing reads them, and a persistent shell's supervisor would hold them
 * for the shell's whole life. */
void release_spec(struct spec *s);
/* check_spec is --check-spec (spare.c); it does not return. */
void check_spec(void);

/* prepare_and_exec turns the calling process into the program: the process
 * state every shellport program starts with (child.c). It returns only on
 * failure, with the step and errno in *f. supervisor is the pid whose death
 * must kill the program (0: none). keep is a descriptor to keep open (and
 * close-on-exec) until the exec, or -1. */
void prepare_and_exec(const struct options *o, pid_t supervisor, int keep, struct failure *f);

/* close_except closes every descriptor >= low except the nkeep (at most 8)
 * in keep. */
int close_except(int low, const int *keep, int nkeep);

/* restrict_child applies o->restrict_to to the calling process (restrict.c). */
int restrict_child(const struct restrictions *r);

/* supervise runs the Linux supervisor (supervise.c) and never returns. */
void supervise(struct options *o);

/* life_gone reports whether the life descriptor, which poll found ready
 * with revents, reached end of file (supervise.c). */
int life_gone(int fd, short revents);

/* spawner runs the spawner (spawner.c) and never returns. */
void spawner(struct options *o);

#endif
