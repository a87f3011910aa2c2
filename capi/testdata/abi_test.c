/* The C ABI seen from C (issues 10 and 18): built and run by capi/abi_test.go
 * against a libshellport built with the test-only hooks (-tags
 * shellport_capitest). Every check prints "ok NAME" or "FAIL NAME: detail";
 * the exit status is the number of failures (capped at 100).
 *
 * argv[1], when given, is a directory to write the library's coverage
 * counters to at the end.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libshellport.h"

extern void shellport_testonly_panic_next(int n);
extern int shellport_testonly_write_coverage(char *dir);

static int failures;

static void check(int ok, const char *name, const char *detail) {
    if (ok) {
        printf("ok %s\n", name);
    } else {
        failures++;
        printf("FAIL %s: %s\n", name, detail ? detail : "(null)");
    }
    fflush(stdout);
}

/* has reports whether s (a library string, may be NULL) contains needle. */
static int has(const char *s, const char *needle) { return s != NULL && strstr(s, needle) != NULL; }

/* call sends req on h and returns the reply, which the caller frees. */
static char *call(long long h, const char *req) { return shellport_call(h, (char *)req); }

/* checkCall calls req and checks that the reply holds every needle. */
static void checkCall(long long h, const char *name, const char *req, const char *n1, const char *n2) {
    char *r = call(h, req);
    check(has(r, n1) && (n2 == NULL || has(r, n2)), name, r);
    shellport_free(r);
}

static char *recvUntil(long long h, const char *needle) {
    for (int i = 0; i < 200; i++) { /* 200 * 100 ms: a hang guard only */
        char *m = shellport_recv(h, 100);
        if (has(m, needle)) return m;
        shellport_free(m);
    }
    return NULL;
}

static const char *echoTools = "{\"testTools\":true}";

static void testOpenAndVersion(void) {
    char *v = shellport_version();
    check(v != NULL && v[0] != '\0', "version", v);
    shellport_free(v);
    shellport_free(NULL); /* freeing NULL is fine */

    long long a = shellport_open(NULL), b = shellport_open(""), c = shellport_open("{\"profile\":\"nope\"}");
    check(a > 0 && b > 0 && c > 0 && a != b && b != c, "open gives distinct positive handles", NULL);
    /* A config that fails to parse still yields a handle; the first
     * request learns why. */
    checkCall(c, "bad config is the first reply", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
              "-32005", "unknown profile \\\"nope\\\"");
    checkCall(a, "tools/list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "\"tools\"", "\"id\":1,");
    check(shellport_close(a) == 0 && shellport_close(b) == 0 && shellport_close(c) == 0, "close", NULL);
}

/* Issue 10: shellport_call never returned for some ids. Every id comes
 * back exactly as it was sent. */
static void testIDs(void) {
    long long h = shellport_open((char *)echoTools);
    const char *ids[] = {
        "\"a<b>&c\"",            /* re-escaped as \u003c by encoding/json */
        "\"line\xe2\x80\xa8sep\xe2\x80\xa9\"", /* raw U+2028 and U+2029 */
        "\"a\\u003cb\"",         /* an escape as the client wrote it */
        "\"\"",                  /* the empty string is an id */
        "1.0", "-0", "1e2", "12345678901234567890123",
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char req[256], want[256];
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{\"name\":\"_echo\",\"arguments\":{\"i\":%zu}}}", ids[i], i);
        snprintf(want, sizeof want, "\"id\":%s,", ids[i]);
        char *r = call(h, req);
        char name[64];
        snprintf(name, sizeof name, "id %zu is echoed exactly", i);
        check(has(r, want) && has(r, "isError\":false"), name, r);
        shellport_free(r);
    }
    /* Invalid ids get the JSON-RPC invalid-request error at once. */
    const char *bad[] = {"true", "false", "{}", "[]", "{\"a\":1}", "[1]", "\"\\ud800\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[256], name[64];
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/list\"}", bad[i]);
        snprintf(name, sizeof name, "invalid id %s is an invalid request", bad[i]);
        char *r = call(h, req);
        check(has(r, "-32600") && has(r, "\"id\":null"), name, r);
        shellport_free(r);
    }
    /* A notification returns NULL at once; a null id is refused like the
     * other ids that are neither numbers nor strings. */
    check(call(h, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}") == NULL, "notification returns NULL", NULL);
    checkCall(h, "null id is an invalid request", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/list\"}", "-32600", "\"id\":null");
    checkCall(h, "NULL request", NULL, "-32600", "request is NULL");
    checkCall(h, "not JSON", "{not json", "-32700", "\"id\":null");
    /* $/cancelRequest sent as a request gets a reply (issue 10). */
    checkCall(h, "cancel request is answered", "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":12345}}", "\"id\":\"c\"", "\"result\":{}");
    checkCall(h, "malformed cancel request", "{\"jsonrpc\":\"2.0\",\"id\":\"c2\",\"method\":\"$/cancelRequest\",\"params\":{}}", "\"id\":\"c2\"", "-32602");
    /* An over-limit message is answered with its id. */
    size_t n = 9 << 20;
    char *big = malloc(n + 200);
    int k = sprintf(big, "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"tools/list\",\"params\":{\"pad\":\"");
    memset(big + k, 'x', n);
    strcpy(big + k + n, "\"}}");
    checkCall(h, "too large", big, "-32004", "\"id\":77,");
    free(big);
    shellport_close(h);
}

/* Issue 10: with a duplicate id, shellport_call returned another request's
 * answer. Each delivery gets its own. */
static void testDuplicateIDs(void) {
    long long h = shellport_open((char *)echoTools);
    /* A request sent with shellport_send still runs when a call reuses its
     * id: the call is refused, and the sleeper's reply goes to recv. */
    check(shellport_send(h, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"_sleep\",\"arguments\":{\"ms\":60000}}}") == 0, "send sleeper", NULL);
    checkCall(h, "call reusing a running id gets its own refusal", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"_echo\",\"arguments\":{}}}", "-32600", "already in use");
    checkCall(h, "cancel the sleeper by an equal id spelt otherwise", "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":7.0}}", "\"result\":{}", NULL);
    char *m = recvUntil(h, "\"id\":7,");
    check(has(m, "-32800"), "the sleeper's own reply (cancelled) went to recv", m);
    shellport_free(m);
    shellport_close(h);
}

struct loopArgs {
    long long h;
    int kind; /* 0 call, 1 recv, 2 send */
    int done;
};

static void *loop(void *p) {
    struct loopArgs *a = p;
    for (int i = 0; i < 100000; i++) {
        if (a->kind == 0) {
            char *r = call(a->h, "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"tools/call\",\"params\":{\"name\":\"_echo\",\"arguments\":{}}}");
            int closed = has(r, "-32003");
            shellport_free(r);
            if (r == NULL || closed) break;
        } else if (a->kind == 1) {
            char *m = shellport_recv(a->h, 20);
            int gone = m == NULL && shellport_send(a->h, "{\"jsonrpc\":\"2.0\",\"method\":\"noop\"}") == -1;
            shellport_free(m);
            if (gone) break;
        } else {
            if (shellport_send(a->h, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/list\"}") != 0) break;
        }
    }
    a->done = 1;
    return NULL;
}

/* Issue 18: concurrent send, recv and call while another thread closes. */
static void testConcurrentClose(void) {
    long long h = shellport_open((char *)echoTools);
    pthread_t th[6];
    struct loopArgs args[6];
    for (int i = 0; i < 6; i++) {
        args[i] = (struct loopArgs){h, i % 3, 0};
        pthread_create(&th[i], NULL, loop, &args[i]);
    }
    usleep(100 * 1000);
    check(shellport_close(h) == 0, "close while others use the handle", NULL);
    for (int i = 0; i < 6; i++) pthread_join(th[i], NULL);
    int all = 1;
    for (int i = 0; i < 6; i++) all = all && args[i].done;
    check(all, "every thread saw the close and stopped", NULL);
}

static void testHandles(void) {
    check(shellport_send(999999, "{}") == -1, "send to unknown handle", NULL);
    check(shellport_recv(999999, 0) == NULL, "recv from unknown handle", NULL);
    checkCall(999999, "call on unknown handle", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "-32003", "not open");
    check(shellport_close(999999) == -1, "close unknown handle", NULL);

    long long h = shellport_open(NULL);
    check(shellport_send(h, NULL) == -1, "send NULL message", NULL);
    check(shellport_recv(h, 0) == NULL, "recv with nothing queued returns NULL", NULL);
    check(shellport_recv(h, -5) == NULL, "negative timeout is no wait", NULL);
    check(shellport_send(h, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}") == 0, "send", NULL);
    char *m = recvUntil(h, "\"id\":5,");
    check(has(m, "\"tools\""), "recv gets the reply", m);
    shellport_free(m);
    check(shellport_close(h) == 0, "close", NULL);
    check(shellport_close(h) == -1, "double close", NULL);
    check(shellport_send(h, "{}") == -1, "send after close", NULL);
    check(shellport_recv(h, 10) == NULL, "recv after close", NULL);
    checkCall(h, "call after close", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "-32003", NULL);
}

/* Issue 16: a started request's reply waits for shellport_wait (never for
 * shellport_recv), with the count of messages recv was given before it. */
static void testTickets(void) {
    long long h = shellport_open(echoTools);
    check(shellport_send(h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"id\":\"s\"}}") == 0,
          "send session/new", NULL);
    char *m = recvUntil(h, "\"id\":1,");
    check(m != NULL, "session/new answered through recv", m);
    shellport_free(m);
    long long t = shellport_start(h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"session\":\"s\",\"name\":\"_notify\",\"arguments\":{\"text\":\"hi\"}}}");
    check(t > 0, "start gives a ticket", NULL);
    unsigned long long queued = 0;
    char *r = NULL;
    for (int i = 0; i < 200 && r == NULL; i++) r = shellport_wait(h, t, 100, &queued); /* a hang guard */
    check(has(r, "\"id\":2,") && has(r, "queued"), "wait gets the reply", r);
    check(queued == 2, "the notice was queued before the reply", NULL);
    shellport_free(r);
    check(shellport_wait(h, t, 0, NULL) == NULL, "a spent ticket gives nothing", NULL);
    m = recvUntil(h, "session/notice");
    check(has(m, "\"hi\""), "the notice went to recv", m);
    shellport_free(m);
    check(shellport_recv(h, 0) == NULL, "the reply did not also go to recv", NULL);
    /* shellport_start_wait: both halves in one crossing. */
    long long t2 = 0;
    queued = 0;
    r = shellport_start_wait(h, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"session\":\"s\",\"name\":\"_notify\",\"arguments\":{\"text\":\"ho\"}}}", 10000, &t2, &queued);
    for (int i = 0; i < 200 && r == NULL && t2 > 0; i++) r = shellport_wait(h, t2, 100, &queued); /* a hang guard */
    check(t2 > 0 && has(r, "\"id\":5,") && has(r, "queued"), "start_wait gets the reply", r);
    check(queued == 3, "start_wait: the notice was queued before the reply", NULL);
    shellport_free(r);
    check(shellport_wait(h, t2, 0, NULL) == NULL, "start_wait spends the ticket", NULL);
    m = recvUntil(h, "\"ho\"");
    check(m != NULL, "start_wait: the notice went to recv", m);
    shellport_free(m);
    check(shellport_recv(h, 0) == NULL, "start_wait: the reply did not also go to recv", NULL);
    t2 = 7;
    check(shellport_start_wait(h, "{\"jsonrpc\":\"2.0\",\"method\":\"$/ping\"}", 10, &t2, NULL) == NULL && t2 == 0,
          "start_wait: a notification has no ticket", NULL);
    check(shellport_start(h, "{\"jsonrpc\":\"2.0\",\"method\":\"$/ping\"}") == 0, "a notification has no ticket", NULL);
    t = shellport_start(h, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"session\":\"s\",\"name\":\"_sleep\",\"arguments\":{\"ms\":60000}}}");
    check(t > 0 && shellport_wait(h, t, 10, NULL) == NULL, "wait times out", NULL);
    check(shellport_forget(h, t) == 0 && shellport_wait(h, t, 0, NULL) == NULL, "a forgotten ticket gives nothing", NULL);
    r = shellport_start_wait(h, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"session\":\"s\",\"name\":\"_sleep\",\"arguments\":{\"ms\":60000}}}", 10, &t2, NULL);
    check(r == NULL && t2 > 0, "start_wait times out with a ticket", r);
    check(shellport_forget(h, t2) == 0 && shellport_wait(h, t2, 0, NULL) == NULL, "start_wait: its ticket can be forgotten", NULL);
    check(shellport_start_wait(h, NULL, 10, &t2, NULL) == NULL && t2 == -1, "start_wait NULL request", NULL);
    check(shellport_start_wait(999999, "{}", 10, &t2, NULL) == NULL && t2 == -1, "start_wait unknown handle", NULL);
    check(shellport_start_wait(h, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}", 10, NULL, NULL) == NULL,
          "start_wait with a NULL ticket returns NULL", NULL);
    check(shellport_start(h, NULL) == -1, "start NULL request", NULL);
    check(shellport_start(999999, "{}") == -1 && shellport_forget(999999, 1) == -1 &&
              shellport_wait(999999, 1, 0, NULL) == NULL, "tickets of an unknown handle", NULL);
    t = shellport_start(h, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"session\":\"s\",\"name\":\"_sleep\",\"arguments\":{\"ms\":60000}}}");
    check(shellport_close(h) == 0, "close", NULL);
    check(shellport_wait(h, t, 10, NULL) == NULL && shellport_start(h, "{}") == -1, "tickets after close", NULL);
    t2 = 7;
    check(shellport_start_wait(h, "{}", 10, &t2, NULL) == NULL && t2 == -1, "start_wait after close", NULL);
    shellport_testonly_panic_next(1);
    check(shellport_start(h, "{}") == -2, "start panic is -2", NULL);
    shellport_testonly_panic_next(1);
    check(shellport_start_wait(h, "{}", 0, &t2, NULL) == NULL && t2 == -2, "start_wait panic is -2", NULL);
    shellport_testonly_panic_next(1);
    r = shellport_wait(h, 1, 0, NULL);
    check(has(r, "shellport_wait panicked"), "wait panic is an internal error", r);
    shellport_free(r);
    shellport_testonly_panic_next(1);
    check(shellport_forget(h, 1) == -2, "forget panic is -2", NULL);
    shellport_testonly_panic_next(0);
}

static int lines(const char *s) {
    int n = 1;
    for (; s && *s; s++) n += *s == '\n';
    return s ? n : 0;
}

/* Issue 16: shellport_recv_many takes what is queued in one go, in order,
 * one message per line, at most max. */
static void testRecvMany(void) {
    long long h = shellport_open(echoTools);
    char *r = shellport_call(h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"id\":\"s\"}}");
    check(has(r, "\"id\":1,"), "session/new", r);
    shellport_free(r);
    check(shellport_recv_many(h, 0, 10) == NULL, "recv_many with nothing queued returns NULL", NULL);
    const char *texts[] = {"n1", "n2\\nstill n2", "n3"};
    char req[256];
    for (int i = 0; i < 3; i++) {
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"session\":\"s\",\"name\":\"_notify\",\"arguments\":{\"text\":\"%s\"}}}", 10 + i, texts[i]);
        r = shellport_call(h, req);
        check(has(r, "\"isError\":false"), "_notify", r);
        shellport_free(r);
    }
    /* Each call returned after its notice was queued: all three are there. */
    char *m = shellport_recv_many(h, 0, 2);
    check(lines(m) == 2 && has(m, "\"n1\"") && has(m, "n2\\nstill n2") && !has(m, "\"n3\"") &&
              strstr(m, "\"n1\"") < strstr(m, "n2\\n"),
          "recv_many gives at most max, in order, one per line", m);
    shellport_free(m);
    m = shellport_recv_many(h, 0, 0);
    check(lines(m) == 1 && has(m, "\"n3\""), "recv_many with max 0 gives one", m);
    shellport_free(m);
    check(shellport_recv_many(999999, 0, 10) == NULL, "recv_many from an unknown handle", NULL);
    shellport_testonly_panic_next(1);
    m = shellport_recv_many(h, 0, 10);
    check(has(m, "shellport_recv_many panicked"), "recv_many panic is an internal error", m);
    shellport_free(m);
    check(shellport_close(h) == 0, "close", NULL);
    check(shellport_recv_many(h, 10, 10) == NULL, "recv_many after close", NULL);
}

/* readable reports whether fd is readable after waiting up to ms. */
static int readable(int fd, int ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, ms) == 1 && (p.revents & POLLIN) != 0;
}

/* Issue 16: shellport_ready_fd is readable exactly while messages wait for
 * shellport_recv, stays so while some are left, and for good once the
 * handle closes; a duplicate keeps working past shellport_close. */
static void testReadyFD(void) {
    long long h = shellport_open(echoTools);
    check(shellport_ready_fd(999999) == -1, "ready_fd of an unknown handle is -1", NULL);
    char *r = shellport_call(h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/\",\"id\":\"s\"}}");
    check(has(r, "\"id\":1,"), "session/new", r);
    shellport_free(r);
    int fd = shellport_ready_fd(h);
    check(fd >= 0, "ready_fd gives a descriptor", NULL);
    check(shellport_ready_fd(h) == fd, "ready_fd gives the same descriptor again", NULL);
    check(!readable(fd, 0), "ready_fd is not readable with nothing queued", NULL);
    /* A reply queued for shellport_recv (sent with shellport_send). */
    check(shellport_send(h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"session\":\"s\",\"name\":\"_notify\",\"arguments\":{\"text\":\"a\"}}}") == 0,
          "send", NULL);
    check(readable(fd, 20000), "ready_fd becomes readable when a message is queued", NULL);
    /* The notice and the reply: take one, the descriptor stays readable. */
    for (int i = 0; i < 200 && lines(r = shellport_recv_many(h, 0, 0)) == 0; i++) usleep(10000);
    check(r != NULL, "recv_many takes the first", r);
    shellport_free(r);
    char *rest = NULL;
    for (int i = 0; i < 200 && (rest = shellport_recv_many(h, 0, 10)) == NULL; i++) usleep(10000);
    check(has(rest, "\"id\":2,"), "the reply follows", rest);
    shellport_free(rest);
    check(!readable(fd, 0), "ready_fd is not readable once recv_many emptied the queue", NULL);
    int copy = dup(fd);
    check(shellport_close(h) == 0, "close", NULL);
    check(readable(copy, 0), "a duplicate of ready_fd is readable after close", NULL);
    check(shellport_recv_many(h, 0, 10) == NULL, "recv_many after close returns NULL", NULL);
    check(shellport_ready_fd(h) == -1, "ready_fd of a closed handle is -1", NULL);
    close(copy);
    long long h2 = shellport_open(NULL);
    shellport_testonly_panic_next(1);
    check(shellport_ready_fd(h2) == -2, "ready_fd panic is -2", NULL);
    shellport_close(h2);
}

/* Issue 18: every recovery path answers instead of crashing the host. */
static void testPanics(void) {
    long long h = shellport_open(NULL);
    shellport_testonly_panic_next(1);
    check(shellport_send(h, "{}") == -2, "send panic is -2", NULL);
    shellport_testonly_panic_next(1);
    char *r = shellport_recv(h, 0);
    check(has(r, "-32603") && has(r, "shellport_recv panicked"), "recv panic is an internal error", r);
    shellport_free(r);
    shellport_testonly_panic_next(1);
    checkCall(h, "call panic is an internal error", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "-32603", "shellport_call panicked");
    shellport_testonly_panic_next(1);
    check(shellport_close(h) == -2, "close panic is -2", NULL);
    check(shellport_close(h) == 0, "the handle is still there to close", NULL);
    shellport_testonly_panic_next(1);
    check(shellport_open(NULL) == 0, "open panic is 0", NULL);
    shellport_testonly_panic_next(0);
}

int main(int argc, char **argv) {
    testOpenAndVersion();
    testIDs();
    testDuplicateIDs();
    testHandles();
    testPanics();
    testTickets();
    testRecvMany();
    testReadyFD();
    testConcurrentClose();
    if (argc > 1 && shellport_testonly_write_coverage(argv[1]) != 0) {
        printf("FAIL coverage: could not write counters to %s\n", argv[1]);
        failures++;
    }
    printf("%d failures\n", failures);
    return failures > 100 ? 100 : failures;
}
