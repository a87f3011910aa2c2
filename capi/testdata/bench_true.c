/* Persistent `true` through the C ABI as a blocking host calls it: one
 * shellport_start_wait per call, then shellport_wait in slices until the
 * reply. Built and run by BenchmarkABIPersistentTrue (capi/bench_test.go)
 * against a libshellport with the test-only hooks.
 *
 * argv[1]: the number of calls to time; argv[2]: "kernel" or "scheduler",
 * where the library parks a waiting caller. Prints one line: calls, then
 * per call the wall time in ns, this process's CPU time (user + system,
 * every thread: the caller's and the Go runtime's) in ns and its context
 * switches. The shell's own CPU is not in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "libshellport.h"

extern void shellport_testonly_park_in_scheduler(void);

static long long nowNs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void usage(long long *cpuNs, long long *switches) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *cpuNs = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
             (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
    *switches = ru.ru_nvcsw + ru.ru_nivcsw;
}

/* callTrue runs `true` once as request id and fails the program on a bad reply. */
static void callTrue(long long h, long long id) {
    char req[200];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"tools/call\",\"params\":{\"session\":\"s\","
             "\"name\":\"bash\",\"arguments\":{\"command\":\"true\"}}}",
             id);
    long long ticket = 0;
    char *r = shellport_start_wait(h, req, 100, &ticket, NULL);
    for (int slices = 0; r == NULL && ticket > 0 && slices < 600; slices++) /* 60 s: a hang guard */
        r = shellport_wait(h, ticket, 100, NULL);
    if (r == NULL || strstr(r, "\"isError\":false") == NULL) {
        fprintf(stderr, "call %lld: %s\n", id, r ? r : "(no reply)");
        exit(1);
    }
    shellport_free(r);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_true CALLS kernel|scheduler\n");
        return 2;
    }
    long long n = atoll(argv[1]);
    if (strcmp(argv[2], "scheduler") == 0) shellport_testonly_park_in_scheduler();
    long long h = shellport_open("{\"profile\":\"persistent\"}");
    char *r = shellport_call(h, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"id\":\"s\"}}");
    if (r == NULL || strstr(r, "\"result\"") == NULL) {
        fprintf(stderr, "session/new: %s\n", r ? r : "(no reply)");
        return 1;
    }
    shellport_free(r);
    for (long long i = 1; i <= 200; i++) callTrue(h, i); /* warm up */
    long long cpu0, cs0, cpu1, cs1;
    usage(&cpu0, &cs0);
    long long t0 = nowNs();
    for (long long i = 0; i < n; i++) callTrue(h, 1000 + i);
    long long t1 = nowNs();
    usage(&cpu1, &cs1);
    printf("%lld %lld %lld %.3f\n", n, (t1 - t0) / n, (cpu1 - cpu0) / n, (double)(cs1 - cs0) / (double)n);
    shellport_close(h);
    return 0;
}
