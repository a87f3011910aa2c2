// Command capi is shellport's C ABI, built with -buildmode=c-shared into
// libshellport.so (or .dylib). The generated header is libshellport.h.
//
// The ABI is small on purpose: every message is a UTF-8 JSON-RPC 2.0 object
// in a NUL-terminated string, the same objects the executable speaks on stdio.
//
//	long long h = shellport_open("{\"profile\":\"persistent\"}");   // > 0, or 0 on failure
//	shellport_send(h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}");
//	char *msg = shellport_recv(h, 200);   // next reply or notification; NULL on timeout
//	shellport_free(msg);
//	char *msgs = shellport_recv_many(h, 200, 64); // up to 64 queued, one per line
//	shellport_free(msgs);
//	char *reply = shellport_call(h, request);  // send and wait for this request's reply
//	shellport_free(reply);
//	long long t = shellport_start(h, request);  // send; the reply waits for shellport_wait
//	unsigned long long queued;
//	char *r = shellport_wait(h, t, 200, &queued); // that reply, or NULL on timeout
//	shellport_forget(h, t);               // or give up on it
//	char *r2 = shellport_start_wait(h, request, 200, &t, &queued); // both in one
//	int fd = shellport_ready_fd(h);       // readable while shellport_recv has messages
//	shellport_close(h);                   // kills every process the runtime started
//
// Every returned string is allocated with malloc and must be released with
// shellport_free. No callbacks reach the caller. The library never writes to
// fd 1 or 2, never installs handlers for SIGINT, SIGTERM or SIGCHLD, never
// waits on pid -1, and ignores SIGPIPE so a write to a closed pipe returns an
// error instead of killing the host process.
package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"errors"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/shellport/shellport/internal/carrier/inproc"
	"github.com/shellport/shellport/internal/core"
	"github.com/shellport/shellport/internal/rpc"
)

func init() {
	// Go installs a SIGPIPE handler in a c-shared library; with it, a write
	// to a broken fd 1 or 2 kills the whole host. Ignoring it makes such a
	// write return EPIPE instead.
	signal.Ignore(syscall.SIGPIPE)
}

// Handles are the only package-level state: C holds integers, never Go
// pointers.
var (
	handlesMu  sync.Mutex
	handles    = map[int64]*inproc.Conn{}
	nextHandle int64
)

// testOnlyEnter runs first in every exported function that recovers
// panics; the ABI test build (capi/testhooks.go) makes it panic on demand to
// prove the recovery paths.
var testOnlyEnter = func() {}

// parkWaitersInKernel is what shellport_open asks of its connection; only
// a test-only hook turns it off, to measure the other way.
var parkWaitersInKernel atomic.Bool

func init() { parkWaitersInKernel.Store(true) }

// goBytes copies a C string into Go memory once. []byte(C.GoString(s))
// copies it twice, and a request is copied on every call (issue 16): the
// string is new and nothing else refers to it, so its bytes can be the
// slice's.
func goBytes(s *C.char) []byte {
	str := C.GoString(s)
	if str == "" {
		return []byte{} // as before: empty, not nil
	}
	return unsafe.Slice(unsafe.StringData(str), len(str))
}

func lookup(h C.longlong) *inproc.Conn {
	handlesMu.Lock()
	defer handlesMu.Unlock()
	return handles[int64(h)]
}

// cstring returns a malloc'd copy of s for the caller to free.
func cstring(s []byte) *C.char { return cjoin([][]byte{s}) }

// cjoin returns a malloc'd NUL-terminated copy of msgs joined by newlines,
// copied once, for the caller to free.
func cjoin(msgs [][]byte) *C.char {
	n := len(msgs) // the newlines between them and the final NUL
	for _, m := range msgs {
		n += len(m)
	}
	p := C.malloc(C.size_t(n)) // cgo's malloc never returns NULL: it aborts, as C.CString does
	buf := unsafe.Slice((*byte)(p), n)
	at := 0
	for i, m := range msgs {
		if i > 0 {
			buf[at] = '\n'
			at++
		}
		at += copy(buf[at:], m)
	}
	buf[at] = 0
	return (*C.char)(p)
}

// errorReply encodes a JSON-RPC error for the C caller.
func errorReply(code int, format string, args ...any) *C.char {
	msg, _ := rpc.EncodeResponse(nil, nil, rpc.Errorf(code, format, args...))
	return cstring(msg)
}

//export shellport_version
func shellport_version() *C.char {
	return C.CString(core.Version)
}

// shellport_open starts a runtime with a JSON config (NULL or "" for the
// defaults; the client's initialize may also bring one). A config that fails
// to parse still yields a handle; the error is the answer to the first
// request, so the caller learns why. Returns 0 only if the library itself
// failed.
//
//export shellport_open
func shellport_open(config *C.char) (h C.longlong) {
	defer func() {
		if recover() != nil {
			h = 0
		}
	}()
	testOnlyEnter()
	var cfg core.Config
	var cfgErr error
	if config != nil {
		cfg, cfgErr = core.ParseConfig([]byte(C.GoString(config)))
	}
	helper, helperErr := spawnHelper()
	conn := inproc.OpenOptions(core.Options{Config: cfg, ConfigErr: cfgErr, SpawnHelper: helper, SpawnHelperNotFound: helperErr})
	if parkWaitersInKernel.Load() {
		conn.ParkWaitersInKernel() // its waiters are C threads
	}
	handlesMu.Lock()
	defer handlesMu.Unlock()
	nextHandle++
	handles[nextHandle] = conn
	return C.longlong(nextHandle)
}

// shellport_send delivers one message. Returns 0 on success, -1 for an
// unknown or closed handle, -2 if the library failed.
//
//export shellport_send
func shellport_send(h C.longlong, msg *C.char) (rc C.int) {
	defer func() {
		if recover() != nil {
			rc = -2
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil || msg == nil {
		return -1
	}
	if conn.Send(goBytes(msg)) != nil {
		return -1
	}
	return 0
}

// shellport_recv returns the next reply or notification, waiting up to
// timeout_ms milliseconds (capped at 60 s). NULL means nothing arrived in
// time, or the handle is closed.
//
//export shellport_recv
func shellport_recv(h C.longlong, timeoutMs C.int) (out *C.char) {
	defer func() {
		if v := recover(); v != nil {
			out = errorReply(rpc.CodeInternalError, "internal error: shellport_recv panicked: %v", v)
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil {
		return nil
	}
	timeout := time.Duration(max(0, min(int(timeoutMs), 60_000))) * time.Millisecond
	msg, err := conn.Recv(timeout)
	if err != nil || msg == nil {
		return nil
	}
	return cstring(msg)
}

// shellport_recv_many is shellport_recv for a reader that takes a burst in
// one go: it waits like shellport_recv for the first message, then returns
// it with the messages queued behind it, at most max in all (max < 1 means
// 1), joined by newlines ("\n"). No message contains a newline: each is
// one line of JSON, as on the executable's stdout.
//
//export shellport_recv_many
func shellport_recv_many(h C.longlong, timeoutMs C.int, maxMessages C.int) (out *C.char) {
	defer func() {
		if v := recover(); v != nil {
			out = errorReply(rpc.CodeInternalError, "internal error: shellport_recv_many panicked: %v", v)
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil {
		return nil
	}
	timeout := time.Duration(max(0, min(int(timeoutMs), 60_000))) * time.Millisecond
	msgs, err := conn.RecvMany(timeout, int(maxMessages))
	if err != nil || len(msgs) == 0 {
		return nil
	}
	return cjoin(msgs)
}

// shellport_call sends a request and blocks until its own reply, which is
// returned (and never also queued for shellport_recv). Notifications return
// NULL at once.
//
//export shellport_call
func shellport_call(h C.longlong, request *C.char) (out *C.char) {
	defer func() {
		if v := recover(); v != nil {
			out = errorReply(rpc.CodeInternalError, "internal error: shellport_call panicked: %v", v)
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil {
		return errorReply(rpc.CodeShutDown, "shellport_call: handle %d is not open", int64(h))
	}
	if request == nil {
		return errorReply(rpc.CodeInvalidRequest, "shellport_call: request is NULL")
	}
	reply, err := conn.Call(goBytes(request))
	if err != nil {
		return errorReply(rpc.CodeShutDown, "shellport_call: %v", err)
	}
	if reply == nil {
		return nil
	}
	return cstring(reply)
}

// shellport_start sends a request whose reply is kept for shellport_wait
// (never also queued for shellport_recv) and returns its ticket, > 0. A
// notification returns 0 (no reply comes); -1 means an unknown or closed
// handle, -2 that the library failed.
//
//export shellport_start
func shellport_start(h C.longlong, request *C.char) (t C.longlong) {
	defer func() {
		if recover() != nil {
			t = -2
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil || request == nil {
		return -1
	}
	id, err := conn.Start(goBytes(request))
	if err != nil {
		return -1
	}
	return C.longlong(id)
}

// shellport_wait returns the reply to the request of ticket t, waiting up
// to timeout_ms milliseconds (capped at 60 s); the ticket is then spent.
// NULL means no reply yet, or that the handle is closed or the ticket
// unknown. When queued is not NULL, it receives how many messages
// shellport_recv had been given before the reply: a caller that reads
// notifications on another thread knows the ones sent ahead of the reply
// once it has read that many.
//
//export shellport_wait
func shellport_wait(h C.longlong, t C.longlong, timeoutMs C.int, queued *C.ulonglong) (out *C.char) {
	defer func() {
		if v := recover(); v != nil {
			out = errorReply(rpc.CodeInternalError, "internal error: shellport_wait panicked: %v", v)
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil {
		return nil
	}
	timeout := time.Duration(max(0, min(int(timeoutMs), 60_000))) * time.Millisecond
	reply, n, err := conn.Wait(int64(t), timeout)
	if err != nil || reply == nil {
		return nil
	}
	if queued != nil {
		*queued = C.ulonglong(n)
	}
	return cstring(reply)
}

// shellport_start_wait is shellport_start and shellport_wait in one
// crossing: it sends the request and returns its reply if it comes within
// timeout_ms milliseconds (capped at 60 s), the ticket then spent. Otherwise
// it returns NULL, and *ticket says why: > 0, the ticket to go on with
// shellport_wait or shellport_forget; 0, a notification (no reply comes);
// -1, an unknown or closed handle or a NULL request; -2, the library
// failed. queued is as for shellport_wait. With a NULL ticket nothing is
// sent and NULL is returned. A call to the file editor runs inside it, so
// a blocking caller gets such a reply with one call (issue 16).
//
//export shellport_start_wait
func shellport_start_wait(h C.longlong, request *C.char, timeoutMs C.int, ticket *C.longlong, queued *C.ulonglong) (out *C.char) {
	if ticket == nil {
		return nil
	}
	*ticket = -2
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil || request == nil {
		*ticket = -1
		return nil
	}
	timeout := time.Duration(max(0, min(int(timeoutMs), 60_000))) * time.Millisecond
	id, reply, n, err := conn.StartWait(goBytes(request), timeout)
	if id == 0 && err != nil {
		*ticket = -1 // nothing was sent: the connection is closed
		return nil
	}
	*ticket = C.longlong(id)
	if err != nil || reply == nil {
		return nil
	}
	if queued != nil {
		*queued = C.ulonglong(n)
	}
	return cstring(reply)
}

// shellport_forget gives up on the reply of ticket t (it is discarded when
// it comes). Returns 0, or -1 for an unknown handle.
//
//export shellport_forget
func shellport_forget(h C.longlong, t C.longlong) (rc C.int) {
	defer func() {
		if recover() != nil {
			rc = -2
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil {
		return -1
	}
	conn.Forget(int64(t))
	return 0
}

// shellport_ready_fd returns a descriptor that is readable while messages
// wait for shellport_recv, and for good once the handle is closed, so a
// caller can watch it in its own event loop (select, poll, epoll, kqueue)
// and take what is queued with shellport_recv_many and a zero timeout,
// with no thread blocked in shellport_recv (issue 16). It is the same
// descriptor on every call for a handle; the caller must not read, write
// or close it, and shellport_close closes it (a caller that may still be
// watching it then should watch a dup of its own). Returns -1 for an
// unknown or closed handle, -2 if the library failed or could not make
// the descriptor.
//
//export shellport_ready_fd
func shellport_ready_fd(h C.longlong) (fd C.int) {
	defer func() {
		if recover() != nil {
			fd = -2
		}
	}()
	testOnlyEnter()
	conn := lookup(h)
	if conn == nil {
		return -1
	}
	n, err := conn.ReadyFD()
	if errors.Is(err, inproc.ErrClosed) {
		return -1
	}
	if err != nil {
		return -2
	}
	return C.int(n)
}

// shellport_free releases a string returned by this library. NULL is fine.
//
//export shellport_free
func shellport_free(p *C.char) {
	if p != nil {
		C.free(unsafe.Pointer(p))
	}
}

// shellport_close shuts a runtime down: every session ends and every
// process it started is killed. Returns 0, or -1 for an unknown handle.
//
//export shellport_close
func shellport_close(h C.longlong) (rc C.int) {
	defer func() {
		if recover() != nil {
			rc = -2
		}
	}()
	testOnlyEnter()
	handlesMu.Lock()
	conn := handles[int64(h)]
	delete(handles, int64(h))
	handlesMu.Unlock()
	if conn == nil {
		return -1
	}
	_ = conn.Close() // the caller has no use for the error; the runtime is gone either way
	return 0
}

func main() {}
