/*
 * bridge: serve shellport's protocol on stdio through the C ABI of a given
 * libshellport.so, so that the Python smoke test can drive a shared library
 * it cannot load itself (the aarch64 one, under qemu-user on an x86_64 host).
 *
 *     bridge LIBRARY           NDJSON requests on stdin, replies on stdout
 *     bridge LIBRARY version   print shellport_version() and exit
 *
 * One thread feeds stdin lines to shellport_send; another drains
 * shellport_recv and writes each message as one line. At end of input the
 * runtime is closed, which kills every process it started.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long (*sp_open)(const char *);
static int (*sp_send)(long long, const char *);
static char *(*sp_recv)(long long, int);
static void (*sp_free)(char *);
static int (*sp_close)(long long);
static char *(*sp_version)(void);

static long long handle;
static volatile int stopping;

static void *sym(void *lib, const char *name) {
	void *p = dlsym(lib, name);
	if (p == NULL) {
		fprintf(stderr, "bridge: %s: %s\n", name, dlerror());
		exit(2);
	}
	return p;
}

static void *pump(void *arg) {
	(void)arg;
	while (!stopping) {
		char *msg = sp_recv(handle, 200);
		if (msg == NULL) {
			continue;
		}
		fputs(msg, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		sp_free(msg);
	}
	return NULL;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: bridge LIBRARY [version]\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		fprintf(stderr, "bridge: %s\n", dlerror());
		return 2;
	}
	sp_open = sym(lib, "shellport_open");
	sp_send = sym(lib, "shellport_send");
	sp_recv = sym(lib, "shellport_recv");
	sp_free = sym(lib, "shellport_free");
	sp_close = sym(lib, "shellport_close");
	sp_version = sym(lib, "shellport_version");
	if (argc > 2 && strcmp(argv[2], "version") == 0) {
		char *v = sp_version();
		printf("%s\n", v);
		sp_free(v);
		return 0;
	}
	handle = sp_open(NULL);
	if (handle <= 0) {
		fprintf(stderr, "bridge: shellport_open failed\n");
		return 1;
	}
	pthread_t reader;
	if (pthread_create(&reader, NULL, pump, NULL) != 0) {
		fprintf(stderr, "bridge: cannot start the reader thread\n");
		return 1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n') {
			line[n - 1] = '\0';
		}
		if (line[0] != '\0' && sp_send(handle, line) != 0) {
			break;
		}
	}
	free(line);
	sp_close(handle);
	stopping = 1;
	pthread_join(reader, NULL);
	return 0;
}
