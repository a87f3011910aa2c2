"""The client end of one connection: ids, pending calls, who reads replies, notices.

Any thread may start a request. Messages are taken off the transport and
dispatched to their waiters (a reply to its future, whatever kind; a notice
to its session's queue) by whoever reads: an event loop with ``acall``s
waiting, which watches the transport's reply descriptor and reads on its own
thread; a blocking call over a transport whose callers read (the process
transport), which reads on its own thread while no other blocking call does
(it leads; the others sleep until it dispatches their replies or hands the
lead on); or the connection's daemon reader thread, which serves every other
waiter and leaves messages to running loops and leading calls that read them
(issue 16). Readers take and dispatch under one lock, so messages are
handled in the order they came, and an exception in the middle of a batch
loses none. Blocking calls wait in short slices, so Ctrl-C gets through;
over a transport with ``sync_calls`` (the library) the calling thread waits
in the library for its own reply instead, with the GIL released and in the
same slices. Either way a blocking call's reply takes no thread hand-off
when its own thread reads it, and goes through the same checks
(``_outcome``), and notices sent ahead of a reply are queued before the
call returns. If the transport dies, every pending call fails with the
transport's exception and so does every later request.

Frames are logged at DEBUG on the ``shellport.wire`` logger (see
docs/environment-variables.md); nothing is formatted unless it is enabled.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Union

from ._debug import DEBUG, log, wire_log
from ._exceptions import (
    MessageTooLarge,
    ProcessExited,
    ProtocolError,
    ShellportError,
    TransportClosed,
    TransportError,
    _rpc_error,
)
from ._transports.base import CLOSED, BaseTransport, encode, encode_string

if TYPE_CHECKING:
    import asyncio  # imported where a coroutine needs it: never at import time

    # Imported where a future is made: a blocking call over the library
    # waits without one, and concurrent.futures (with the logging it
    # imports) is milliseconds of ``import shellport`` (issue 16).
    import concurrent.futures

RECEIVE_SLICE = 0.2  # seconds one receive may block; bounds shutdown latency
READ_GRACE = 0.02  # seconds the reader thread leaves a ready message to a reading loop
WAIT_SLICE = 0.25  # seconds one wait on a future may block before signals run
EXIT_REPORT_WAIT = 5.0  # seconds a failed sender waits for the reader's exit report
_WIRE_CLIP = 64 << 10
PING_METHOD = "$/ping"  # what the heartbeat sends (docs/PROTOCOL.md)

Result = dict[str, Any]

#: A request's params: an object to encode, or its JSON already encoded
#: (Session.call keeps its part of every tools/call request encoded, issue 16).
Params = Union[Mapping[str, Any], bytes]


class _LoopReader:
    """One event loop's share of a connection: its acalls' replies, and what it watches.

    From its first acall the loop watches its own duplicate of the
    transport's reply descriptor (``add_reader``) and reads the replies
    itself, on its own thread, settling their futures directly: no reader
    thread hands them over (issue 16). It stays registered between calls
    (registering costs more than a call's own work in asyncio); woken with
    no acall of its own waiting, it lets go and leaves the message to the
    reader thread. A reply that another reader took (the reader thread,
    another loop) is put here instead; the first of a batch schedules one
    ``call_soon_threadsafe`` and the loop settles every reply that arrived
    by then in one go.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int | None) -> None:
        # Weakly: the connection keeps readers by loop in a weak mapping,
        # and a reader that held its loop would keep both (and the
        # descriptor) for the connection's life, one per loop that ever
        # awaited an acall (asyncio.run per call makes a loop each time).
        self._loop = weakref.ref(loop)
        self.lock = threading.Lock()
        self.ready: list[tuple[asyncio.Future[Result], Result | None, BaseException | None]] = []
        # The thread dispatching in this loop's own _on_ready now (its
        # thread, the loop running), else None: put settles directly there.
        # Asking asyncio for the running loop instead costs a getpid system
        # call per reply on Python 3.11 and older (issue 16).
        self.dispatching: int | None = None
        self.fd = fd
        self.waiting = 0  # acalls of this loop awaiting a reply
        self.watching = False  # fd is registered with the loop
        self.released = False  # fd is closed: never register it again
        # The descriptor is closed once nobody can be watching it: when the
        # loop stops watching after the connection ended, when the
        # connection ends while the loop is not watching (or is closed), or
        # when the loop is gone. Changes of watching and released hold lock.
        self._close_fd: Callable[[], None] = (
            weakref.finalize(self, os.close, fd) if fd is not None else _nothing
        )

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop, or None once it is gone."""
        return self._loop()

    def release(self) -> None:
        """Close the descriptor (lock held, not watching)."""
        self.released = True
        self._close_fd()

    def put(
        self,
        future: asyncio.Future[Result],
        result: Result | None,
        exception: BaseException | None,
    ) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return  # nobody can await it any more; holding it would keep the loop
        if self.dispatching == _get_ident():
            # Read on the loop's own thread: settle it here, after any
            # reply another reader handed over before it (still queued
            # while the loop was not running), so none overtakes another.
            if self.ready:
                self.settle()
            if not future.done():  # else the awaiting task was cancelled
                if exception is not None:
                    future.set_exception(exception)
                else:
                    future.set_result(result if result is not None else {})
            return
        with self.lock:
            first = not self.ready
            self.ready.append((future, result, exception))
        if first:
            try:
                loop.call_soon_threadsafe(self.settle)
            except RuntimeError:  # the loop has closed meanwhile: nobody awaits
                with self.lock:
                    self.ready.clear()

    def reading(self) -> bool:
        """Whether this loop reads replies now (any thread; a hint, read without locks).

        It must have acalls waiting, watch the descriptor and be running: a
        loop stopped or closed with acalls pending reads nothing, and the
        reader thread must not wait for it.
        """
        loop = self.loop
        return bool(
            self.waiting
            and self.watching
            and loop is not None
            and loop.is_running()
            and not loop.is_closed()
        )

    def settle(self) -> None:
        with self.lock:
            ready, self.ready = self.ready, []
        for future, result, exception in ready:
            if future.done():
                continue  # the awaiting task was cancelled
            if exception is not None:
                future.set_exception(exception)
            else:
                future.set_result(result if result is not None else {})


def _nothing() -> None:
    pass


class _LoopFuture:
    """Where the reply of an ``acall`` goes: its loop's future, through _LoopReader."""

    __slots__ = ("future", "replies")

    def __init__(self, replies: _LoopReader, future: asyncio.Future[Result]) -> None:
        self.replies = replies
        self.future = future

    def set_result(self, result: Result) -> None:
        self.replies.put(self.future, result, None)

    def set_exception(self, exception: BaseException) -> None:
        self.replies.put(self.future, None, exception)


class _Pending:
    """A request waiting for its reply (one per call: a plain class, cheap to make)."""

    __slots__ = ("future", "method", "size")

    def __init__(
        self,
        # None: the caller waits itself (the transport holds its reply)
        future: concurrent.futures.Future[Result] | _LoopFuture | _Waiter | None,
        method: str,
        size: int,
    ) -> None:
        self.future = future
        self.method = method
        self.size = size


#: The pending entries of the blocking calls that wait for their own replies
#: in the transport (sync_calls), by method: nothing is settled through
#: them, so one per method serves every call (issue 16).
_waits_itself: dict[str, _Pending] = {}


class _Waiter:
    """Where a blocking call's reply goes when its own thread may read it (issue 16).

    Over a transport whose callers read (the process transport), the thread
    of a blocking call reads and dispatches messages itself while no other
    blocking call does (it leads); while one does, it sleeps on gate until
    its reply is dispatched or it is asked to lead (see Connection._wait_led).
    done, signalled and the gate change under the connection's lock, except
    where its own thread dispatches its reply (see _finish).
    """

    __slots__ = (
        "conn",
        "done",
        "exception",
        "gate",
        "result",
        "selecting",
        "signalled",
        "thread",
    )

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        # Made when the caller first sleeps (open_gate): most calls lead and
        # never do (issue 16).
        self.gate: threading.Lock | None = None
        self.done = False
        self.result: Result | None = None
        self.exception: BaseException | None = None
        self.signalled = False  # the gate is released and nobody has taken it yet
        self.selecting = False  # leading, and waiting for the descriptor
        self.thread = _get_ident()  # the caller's

    def open_gate(self) -> threading.Lock:
        """The gate to sleep on, released if signalled already (lock held)."""
        gate = self.gate
        if gate is None:
            gate = self.gate = threading.Lock()
            if not self.signalled:
                gate.acquire()  # released by signal(): the sleeper's wake-up
        return gate

    def set_result(self, result: Result) -> None:
        self.result = result
        self._finish()

    def set_exception(self, exception: BaseException) -> None:
        self.exception = exception
        self._finish()

    def _finish(self) -> None:
        if self.thread == _get_ident():
            # The caller's own thread dispatches its reply, so it leads: it
            # is not sleeping on the gate nor waiting for the descriptor,
            # and it looks at done next (issue 16).
            self.done = True
            return
        conn = self.conn
        with conn._lock:
            self.done = True
            self.signal()
            # Another reader took the reply of a caller that waits for the
            # descriptor (a loop read it, or the reader thread): end that
            # wait. The leader looks at done after it stops selecting, and
            # the descriptor stays open while it leads.
            if self.selecting and conn._wake_w >= 0:
                with contextlib.suppress(OSError):  # full: readable already
                    os.write(conn._wake_w, b"!")

    def signal(self) -> None:
        """Wake the thread sleeping on the gate, now or when it sleeps (lock held)."""
        if not self.signalled:
            self.signalled = True
            if self.gate is not None:  # else open_gate makes it released
                self.gate.release()


OutputCallback = Callable[[str], Any]


class _LiveOutput:
    """The live output of one call (tools/output pieces) on its way to on_output.

    The reader thread queues pieces (it never runs user code, so a slow or
    stuck consumer cannot hold up replies); the caller's own thread, or its
    event loop for acall, hands them to the consumer in order. What waits
    here is bounded by the runtime's own cap on a call's stream.
    """

    def __init__(self, consumer: OutputCallback) -> None:
        self.consumer = consumer
        self.pieces: deque[str] = deque()
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.wake: Callable[[], None] = self.ready.set
        self.broken = False  # the consumer raised: it gets nothing more

    def push(self, text: str) -> None:
        with self.lock:
            self.pieces.append(text)
        self.wake()

    def take(self) -> list[str]:
        with self.lock:
            out = list(self.pieces)
            self.pieces.clear()
        return out

    def deliver(self) -> list[Any]:
        """Pass the queued pieces on; returns what the consumer returned (awaitables)."""
        results = []
        for text in self.take():
            if self.broken:
                continue
            try:
                results.append(self.consumer(text))
            except Exception:
                self.broken = True
                log.warning(
                    "on_output raised; the call goes on, and the rest of its output "
                    "reaches only its result",
                    exc_info=True,
                )
        return results


class Connection:
    """A JSON-RPC client over one transport."""

    def __init__(self, transport: BaseTransport) -> None:
        self.transport = transport
        transport._bind()  # a custom transport that did not call BaseTransport.__init__
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._notices: dict[str, deque[str]] = {}
        self._live: dict[int, _LiveOutput] = {}
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopReader] = (
            weakref.WeakKeyDictionary()
        )
        # Whoever reads messages (the reader thread, an event loop) takes
        # them and dispatches them under _read_lock, so they are handled in
        # the order they came, and holds it only for that: nobody waits for
        # messages while holding it.
        self._read_lock = threading.Lock()
        # Messages taken off the transport whose dispatch an exception cut
        # short (a Ctrl-C in a loop's callback): the next reader dispatches
        # them before anything it reads (under _read_lock).
        self._backlog: list[bytes] = []
        # A reply taken off _pending whose future an exception kept from
        # being settled (under _read_lock): see _dispatch.
        self._claimed: tuple[_Pending, dict[str, Any], bytes] | None = None
        self._parked = False  # the reader thread leaves a ready message to a loop a moment
        self._hand_over = False  # a loop saw the transport end: the thread reports it
        self._reader_wake = threading.Condition(self._lock)
        self._dead: TransportError | None = None
        self._stopping = False
        self._closing = threading.Event()  # set by close(); stops the heartbeat
        self._close_lock = threading.Lock()
        self._closed = False
        self._sync = transport.sync_calls
        # Messages the reader has dispatched, and a condition a blocking
        # call waits on until the notices sent ahead of its reply are in.
        self._dispatched = 0
        self._behind = 0  # callers waiting on _caught_up
        self._caught_up = threading.Condition(self._lock)
        # Blocking calls over a transport whose callers read (the process
        # transport) read their own replies: one at a time leads (reads and
        # dispatches everything, in order, until its reply is in), the
        # others sleep until it dispatches theirs or hands the lead on, and
        # the reader thread stays parked while they read (issue 16).
        self._leader: _Waiter | None = None
        self._followers: dict[_Waiter, None] = {}  # sleeping, oldest first
        self._turns = 0  # leads begun: the reader thread parks while this moves
        self._turns_looked = 0  # _turns when the reader thread last looked
        self._lead_fd = -1  # the leader's duplicate of the reply descriptor
        self._wake_r = self._wake_w = -1  # ends a leader's wait: another took its reply
        if not self._sync and transport.callers_read:
            self._open_lead_fds()
        self._reader = threading.Thread(
            target=self._read_loop, name="shellport-reader", daemon=True
        )
        _live.add(self)
        self._reader.start()

    # --- usability -----------------------------------------------------------------

    @property
    def forked(self) -> bool:
        """True in a process forked after this connection opened."""
        return self.transport.forked

    @property
    def closing(self) -> bool:
        """True once close() has begun."""
        return self._closing.is_set()

    @property
    def usable(self) -> bool:
        """False once the connection is closed, dead or inherited through fork()."""
        return not (self._closing.is_set() or self._dead is not None or self.forked)

    def check(self) -> None:
        """Raise if this connection can no longer carry requests.

        It must not take a lock first: after fork() a lock may be held by a
        thread that does not exist in the child.
        """
        self.transport.check()  # fork(), or a transport closed under us
        dead = self._dead
        if dead is not None:
            raise _copy(dead)

    def pending_count(self) -> int:
        """How many requests still wait for a reply."""
        with self._lock:
            return len(self._pending)

    # --- requests ------------------------------------------------------------------

    def start(
        self, method: str, params: Params, live: _LiveOutput | None = None
    ) -> tuple[int, concurrent.futures.Future[Result]]:
        """Send a request and return its id and the future of its result.

        With live, the request's tools/output pieces are queued there.
        """
        import concurrent.futures

        future: concurrent.futures.Future[Result] = concurrent.futures.Future()
        return self._send_request(method, params, future, live), future

    def _send_request(
        self,
        method: str,
        params: Params,
        future: concurrent.futures.Future[Result] | _LoopFuture | _Waiter,
        live: _LiveOutput | None = None,
    ) -> int:
        """Send a request whose reply whoever reads gives to future; its id."""
        self.check()
        request_id = next(self._ids)
        data = _request(request_id, method, params)
        with self._lock:
            if self._dead is not None:
                raise _copy(self._dead)
            self._pending[request_id] = _Pending(future, method, len(data))
            if live is not None:
                self._live[request_id] = live
            if self._parked and _needs_thread(future):
                self._reader_wake.notify()  # only the reader thread is sure to read its reply
        try:
            self._send(data)
        except BaseException as exc:
            with self._lock:
                self._pending.pop(request_id, None)
                self._live.pop(request_id, None)
            if isinstance(exc, ProcessExited):
                # The reader sees the same end and tells the whole story
                # (with the stderr tail); give it a moment to.
                self._wake_reader(hand_over=True)
                self._reader.join(EXIT_REPORT_WAIT)
                if self._dead is not None:
                    raise _copy(self._dead) from exc
            raise
        return request_id

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """Send a notification (no reply comes back)."""
        self.check()
        self._send(encode({"jsonrpc": "2.0", "method": method, "params": params}))

    def cancel(self, request_id: int) -> None:
        """Ask the runtime to cancel a request; best effort, never raises."""
        with contextlib.suppress(ShellportError):  # the runtime is gone; so is the request
            self.notify("$/cancelRequest", {"id": request_id})

    def wait(
        self,
        request_id: int,
        future: concurrent.futures.Future[Result],
        timeout: float | None = None,
    ) -> Result:
        """Block until the reply; Ctrl-C cancels the request and re-raises."""
        import concurrent.futures

        remaining = timeout
        try:
            while True:
                step = WAIT_SLICE if remaining is None else min(WAIT_SLICE, remaining)
                try:
                    return future.result(step)
                except concurrent.futures.TimeoutError:
                    self.check()
                    if remaining is not None:
                        remaining -= step
                        if remaining <= 0:
                            raise _no_reply(request_id, timeout) from None
        except (KeyboardInterrupt, TransportError):
            self.cancel(request_id)
            raise

    async def await_(self, request_id: int, future: concurrent.futures.Future[Result]) -> Result:
        """Await the reply; cancelling the awaiting task cancels the request."""
        import asyncio  # loaded already: a coroutine runs only under a loop

        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            self.cancel(request_id)
            raise

    def call(self, method: str, params: Params, timeout: float | None = None) -> Result:
        """Send a request and wait for its result.

        Over a transport with sync_calls (the library) the calling thread
        waits in the transport, which holds the reply for it; Ctrl-C or a
        timeout while waiting cancels the request and forgets its ticket, as
        wait() does. Every blocking call over the library runs this, so the
        common case takes the fewest steps (issue 16): one look at the wire
        logger, a shared pending entry, and a reply that is one object with
        a result object returns that result without the general checks
        (_parse, _outcome), which everything else still goes through.
        """
        if not self._sync:
            if self._lead_fd >= 0:
                return self._call_led(method, params, timeout)
            return self.wait(*self.start(method, params), timeout=timeout)
        # What check() asks of the transport (a fork, a close), before any
        # lock; a dead connection is found under the lock below.
        self.transport.check()
        request_id = next(self._ids)
        data = _request(request_id, method, params)
        with self._lock:
            if self._dead is not None:
                raise _copy(self._dead)
            # close() cancels it; pending_count counts it
            pending = _waits_itself.get(method)
            if pending is None:
                pending = _waits_itself[method] = _Pending(None, method, 0)
            self._pending[request_id] = pending
        wire = wire_log.isEnabledFor(DEBUG)  # once per call: it is three calls deep
        try:
            if wire:
                wire_log.debug("-> %s", _wire_text(data))
            step = WAIT_SLICE if timeout is None or timeout >= WAIT_SLICE else timeout
            try:
                # The first slice of the wait goes with the request, in one
                # crossing: an editor call returns with its reply (issue 16).
                ticket, reply, queued = self.transport.start_wait_call(data, step)
            except KeyboardInterrupt:
                self.cancel(request_id)
                raise
            if reply is None:
                reply, queued = self._wait_ticket(request_id, ticket, timeout, step)
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
        if wire:
            wire_log.debug("<- %s", _wire_text(reply))
        if self._dispatched < queued:
            self._catch_up(queued)
        # A reply that is one compact object with a result object and no
        # error member is that result; anything else goes the general way.
        message = _compact_object(reply)
        if message is not None and "error" not in message:
            result = message.get("result")
            if type(result) is dict:
                return result
        try:
            message = _parse(reply)
            if "result" not in message and "error" not in message:
                raise ProtocolError(
                    f"the runtime sent a message with no result or error: {_clip(reply)}"
                )
        except ProtocolError as exc:
            self._die(exc)
            raise
        return _outcome(method, message, reply)

    def _call_led(self, method: str, params: Params, timeout: float | None) -> Result:
        """call() whose thread reads the replies itself while no other caller does.

        Ctrl-C or a timeout while waiting cancels the request, as wait()
        does; the reply goes through the same dispatch as every other.
        """
        waiter = _Waiter(self)
        request_id = self._send_request(method, params, waiter)
        deadline = None if timeout is None else _monotonic() + timeout
        try:
            while True:
                until = _monotonic() + WAIT_SLICE
                if deadline is not None and deadline < until:
                    until = deadline
                self._wait_led(waiter, until)
                if waiter.done:
                    break
                self.check()
                if deadline is not None and _monotonic() >= deadline:
                    raise _no_reply(request_id, timeout) from None
        except (KeyboardInterrupt, TransportError):
            self.cancel(request_id)
            raise
        if waiter.exception is not None:
            raise waiter.exception
        assert waiter.result is not None
        return waiter.result

    def _wait_led(self, waiter: _Waiter, until: float) -> None:
        """Wait for waiter's reply until the monotonic time until: lead, or sleep while one does."""
        while True:
            with self._lock:
                if waiter.done:
                    return
                lead = self._leader is None and self._dead is None
                if lead:
                    self._leader = waiter
                    self._turns += 1
                else:
                    self._followers[waiter] = None
                    gate = waiter.open_gate()
            if lead:
                try:
                    self._lead(waiter, until)
                finally:
                    self._step_down()
                return
            left = until - _monotonic()
            try:
                woken = left > 0 and gate.acquire(True, left)
            except BaseException:  # Ctrl-C: a lead handed to this thread goes on
                with self._lock:
                    self._followers.pop(waiter, None)
                    if waiter.signalled and self._leader is None:
                        self._promote()
                raise
            with self._lock:
                if not woken and waiter.signalled:
                    gate.acquire(False)  # signalled as the wait ended
                    woken = True
                waiter.signalled = False
                self._followers.pop(waiter, None)
            if not woken:
                return  # the slice is over: the caller looks at signals and timeouts

    def _lead(self, waiter: _Waiter, until: float) -> None:
        """Read and dispatch everything, in order, until waiter's reply is in or until passes.

        The same steps as the reader thread's (_read_ready); a reply taken
        by another reader meanwhile ends the wait through the wake pipe.
        """
        fd, wake = self._lead_fd, self._wake_r
        while not waiter.done:
            if self._backlog:  # left by a reader an exception interrupted
                with self._read_lock:
                    if not self._dispatch_batch([]):
                        return
                continue
            left = until - _monotonic()
            if left <= 0:
                return
            waiter.selecting = True
            try:
                ready = not waiter.done and self.transport.wait_ready(fd, left, wake)
            except Exception as exc:  # closed under us, mostly: as the reader thread would
                self._reading_failed(exc)
                return
            finally:
                waiter.selecting = False
            if waiter.done:  # another reader dispatched it: maybe it woke us
                with contextlib.suppress(OSError):
                    os.read(wake, 64)
                return
            if ready and not self._read_ready():
                return

    def _step_down(self) -> None:
        """End a lead: hand it to a sleeping caller; close the descriptors once dead."""
        with self._lock:
            self._leader = None
            if self._dead is not None:
                self._close_lead_fds()
            else:
                self._promote()

    def _promote(self) -> None:
        """Ask the longest-sleeping caller still waiting to lead (lock held)."""
        for follower in self._followers:
            if not follower.done:
                del self._followers[follower]
                follower.signal()
                return

    def _open_lead_fds(self) -> None:
        try:
            fd = self.transport.reply_fd()
        except Exception:  # none now: blocking calls go through the reader thread
            return
        if fd is None:
            return
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._lead_fd = fd

    def _close_lead_fds(self) -> None:
        """Close the leader's descriptors (lock held, nobody leading, the connection dead)."""
        fds = (self._lead_fd, self._wake_r, self._wake_w)
        self._lead_fd = self._wake_r = self._wake_w = -1
        for fd in fds:
            if fd >= 0:
                os.close(fd)

    def _wait_ticket(
        self, request_id: int, ticket: int, timeout: float | None, spent: float = 0.0
    ) -> tuple[bytes, int]:
        remaining = None if timeout is None else timeout - spent
        try:
            while True:
                step = WAIT_SLICE if remaining is None else min(WAIT_SLICE, remaining)
                if remaining is None or remaining > 0:
                    got = self.transport.wait_call(ticket, step)
                    if got is not None:
                        return got
                self.check()
                if remaining is not None:
                    remaining -= step
                    if remaining <= 0:
                        raise _no_reply(request_id, timeout) from None
        except (KeyboardInterrupt, TransportError):
            self.transport.forget_call(ticket)
            self.cancel(request_id)
            raise

    def _catch_up(self, queued: int) -> None:
        """Wait until the reader has dispatched queued messages (the notices before a reply)."""
        with self._caught_up:
            self._behind += 1
            if self._parked:
                self._reader_wake.notify()  # the notices may be the reader thread's to read
            try:
                while self._dispatched < queued and self._dead is None:
                    self._caught_up.wait(WAIT_SLICE)
            finally:
                self._behind -= 1

    async def acall(self, method: str, params: Params) -> Result:
        """Send a request and await its result.

        The loop reads the reply itself while it has acalls waiting (see
        _LoopReader); over a transport with no reply descriptor the reader
        thread hands it over. Cancelling the awaiting task cancels the
        request.
        """
        import asyncio  # loaded already: a coroutine runs only under a loop

        # Before any lock: in a forked child one may be held by a thread
        # that does not exist there.
        self.check()
        loop = asyncio.get_running_loop()
        reader = self._loops.get(loop)
        if reader is None:
            reader = self._loop_reader(loop)
        future: asyncio.Future[Result] = loop.create_future()
        reads = reader.watching or (reader.fd is not None and self._watch(reader))
        if reads:
            reader.waiting += 1
        try:
            request_id = self._send_request(method, params, _LoopFuture(reader, future))
            try:
                return await future
            except asyncio.CancelledError:
                self.cancel(request_id)
                raise
        finally:
            # No lock here: a coroutine of a closed loop is finalised by the
            # garbage collector, in whatever thread allocates at the time,
            # maybe one that holds the connection's lock.
            if reads:
                reader.waiting -= 1

    def _loop_reader(self, loop: asyncio.AbstractEventLoop) -> _LoopReader:
        """This loop's reader, made on its first acall."""
        fd = None
        if not self.closing and self._dead is None:
            with contextlib.suppress(OSError, ShellportError):  # then the thread reads
                fd = self.transport.reply_fd()
        reader = _LoopReader(loop, fd)
        with self._lock:
            self._loops[loop] = reader
        return reader

    def _watch(self, reader: _LoopReader) -> bool:
        """Start reading replies on reader's loop (on that loop's thread); False: cannot.

        A loop that cannot watch a descriptor (add_reader is not
        implemented: Windows' proactor loop) gets its replies from the
        reader thread, as a transport without a descriptor does.
        """
        with reader.lock:
            if reader.released or self._dead is not None:
                return False  # the connection has ended: the call fails without it
            assert reader.fd is not None
            try:
                loop = reader.loop
                assert loop is not None  # the acall that asks runs on it
                loop.add_reader(reader.fd, self._on_ready, reader)
            except (NotImplementedError, OSError, ValueError):
                reader.release()  # never again on this loop
                return False
            reader.watching = True
            return True

    def _unwatch(self, reader: _LoopReader) -> None:
        """Stop reading replies on reader's loop (on that loop's thread)."""
        with reader.lock:
            if not reader.watching:
                return
            assert reader.fd is not None
            reader.watching = False
            loop = reader.loop
            if loop is not None:  # else its selector went with it
                loop.remove_reader(reader.fd)
            if self._dead is not None:
                reader.release()  # no acall will watch it again

    def _on_ready(self, reader: _LoopReader) -> None:
        """The reply descriptor is readable: take and dispatch what is there, on the loop."""
        if not reader.waiting:
            # Nothing of this loop's waits: what came is someone else's
            # (the reader thread serves them while no loop waits). Let go
            # until this loop's next acall.
            self._unwatch(reader)
            return
        with self._read_lock:  # held by others only while they dispatch
            try:
                batch = self.transport.receive_ready()
            except Exception:
                batch = None
            if batch is not None:
                reader.dispatching = _get_ident()
                try:
                    self._dispatch_batch(batch)
                finally:
                    reader.dispatching = None
                return
        # The transport has ended: stop watching (it stays readable) and
        # let the reader thread find out how and fail every call.
        self._unwatch(reader)
        if not self._wake_reader(hand_over=True):
            try:
                self.check()
                raise TransportError(f"the connection over {self.transport.name} ended")
            except TransportError as exc:
                self._die(exc)

    def call_live(self, method: str, params: Params, on_output: OutputCallback) -> Result:
        """call(), handing each piece of live output to on_output on this thread.

        Every piece arrives before the reply, so all of them have been passed
        on when this returns; none is after it raised (a cancelled call).
        """
        live = _LiveOutput(on_output)
        request_id, future = self.start(method, params, live)
        future.add_done_callback(lambda _: live.wake())
        try:
            while True:
                live.ready.wait(WAIT_SLICE)
                live.ready.clear()
                live.deliver()
                if future.done():
                    live.deliver()
                    return future.result()
                self.check()
        except KeyboardInterrupt:
            self.cancel(request_id)
            raise
        finally:
            self._drop_live(request_id)

    async def acall_live(self, method: str, params: Params, on_output: OutputCallback) -> Result:
        """acall(), handing each piece of live output to on_output on the event loop.

        on_output may be a coroutine function: each call is awaited before
        the next piece. Cancelling the awaiting task cancels the request, and
        on_output sees nothing more.
        """
        import asyncio
        import inspect

        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        live = _LiveOutput(on_output)

        def wake_up() -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(wake.set)

        live.wake = wake_up
        request_id, future = self.start(method, params, live)
        future.add_done_callback(lambda _: wake_up())
        try:
            while True:
                await wake.wait()
                wake.clear()
                while True:
                    pending = live.deliver()
                    for value in pending:
                        if not inspect.isawaitable(value):
                            continue
                        if live.broken:  # an earlier piece's coroutine raised
                            close = getattr(value, "close", None)
                            if close is not None:
                                close()
                            continue
                        try:
                            await value
                        except Exception:
                            live.broken = True
                            log.warning("on_output raised; the call goes on", exc_info=True)
                    if not live.pieces:
                        break
                if future.done():
                    return future.result()
        except asyncio.CancelledError:
            self.cancel(request_id)
            raise
        finally:
            self._drop_live(request_id)

    def _drop_live(self, request_id: int) -> None:
        with self._lock:
            live = self._live.pop(request_id, None)
        if live is not None:
            live.broken = True  # a piece still queued is never passed on

    # --- heartbeat -----------------------------------------------------------------

    def start_heartbeat(self, interval: float) -> None:
        """Send $/ping four times per interval until close, on a thread of its own.

        A runtime started with a heartbeat (``shellport serve --heartbeat``)
        ends itself, killing everything, after interval seconds without a
        message; over a channel that may never deliver end of input
        (``kubectl exec``) that is how it learns this process is gone. The
        thread only sends, so a reply-less silence from the runtime does not
        stop it, and a blocked channel blocks only it.
        """
        period = max(interval / 4, 0.025)
        threading.Thread(
            target=self._ping_loop, args=(period,), name="shellport-heartbeat", daemon=True
        ).start()

    def _ping_loop(self, period: float) -> None:
        while not self._closing.wait(period):
            try:
                self.notify(PING_METHOD, {})
            except ShellportError:
                return  # the connection is dead or closed; the reader reports it

    # --- notices -------------------------------------------------------------------

    def watch_session(self, session_id: str) -> None:
        with self._lock:
            self._notices.setdefault(session_id, deque())

    def forget_session(self, session_id: str) -> None:
        with self._lock:
            self._notices.pop(session_id, None)

    def drain_notices(self, session_id: str) -> list[str]:
        with self._lock:
            queued = self._notices.get(session_id)
            if not queued:
                return []
            out = list(queued)
            queued.clear()
            return out

    # --- the wire ------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        if wire_log.isEnabledFor(DEBUG):
            wire_log.debug("-> %s", _wire_text(data))
        self.transport.send(data)

    def _read_loop(self) -> None:
        try:
            fd = self.transport.reply_fd()
        except Exception:  # a transport that cannot make one now: read it the old way
            fd = None
        try:
            while not self._stopping:
                try:
                    if fd is None:
                        batch = self.transport.receive_many(RECEIVE_SLICE)
                        with self._read_lock:
                            if not self._dispatch_batch(batch):
                                return
                        continue
                    if self._backlog:  # left by a reader an exception interrupted
                        with self._read_lock:
                            if not self._dispatch_batch([]):
                                return
                    self._forget_closed_loops()
                    if self._parked_for_a_loop(fd):
                        continue
                    # Waiting here also keeps what only this thread reads
                    # (a child's stderr) from filling up.
                    seen = self._dispatched
                    if not self.transport.wait_ready(fd, RECEIVE_SLICE):
                        continue
                    if self._left_to_a_loop(seen):
                        continue
                    if not self._read_ready():
                        return
                except Exception as exc:  # the reader must never die silently
                    self._reading_failed(exc)
                    return
                except BaseException:  # raised by a callback; what was read is dispatched
                    log.warning("a callback raised while replies were dispatched", exc_info=True)
        finally:
            if fd is not None:
                os.close(fd)

    def _forget_closed_loops(self) -> None:
        """Drop the readers of loops that have closed, and close their descriptors.

        A loop's reader is otherwise let go when the loop object is
        collected, which a reference cycle can put off until the garbage
        collector runs, holding a descriptor meanwhile (asyncio.run makes
        and closes a loop per call). A closed loop never runs again, and its
        selector, where the descriptor was registered, is closed with it.
        """
        with self._lock:
            closed = [(loop, r) for loop, r in self._loops.items() if loop.is_closed()]
            for loop, _ in closed:
                del self._loops[loop]
        for _, reader in closed:
            with reader.lock:
                reader.watching = False
                reader.release()

    def _read_ready(self) -> bool:
        """Take the messages the transport has now and dispatch them in order; False once dead.

        Whoever reads (the reader thread, a blocking call that leads) has
        waited for the reply descriptor holding no lock. What is taken goes
        to the backlog before it is dispatched, so an exception in between
        (a Ctrl-C reaching a blocking call that reads) loses none of it: the
        next reader dispatches it. The transport's end, or a failure to
        read it, ends the connection.
        """
        try:
            with self._read_lock:
                got = self.transport.receive_ready()
                if got is None:  # ended: receive_many says how
                    got = self.transport.receive_many(0)
                if got:
                    self._backlog += got
                return self._dispatch_batch([])
        except Exception as exc:
            self._reading_failed(exc)
            return False

    def _reading_failed(self, exc: Exception) -> None:
        """End the connection over a reader's failure (the transport's end, mostly)."""
        if isinstance(exc, TransportError):
            if not self._stopping:
                log.debug("the connection over %s ended: %s", self.transport.name, exc)
            self._die(TransportClosed(CLOSED) if self._stopping else exc)
        else:
            self._die(TransportError(f"reading from the runtime failed: {exc!r}"))

    def _parked_for_a_loop(self, fd: int) -> bool:
        """Wait a moment without watching the descriptor while others read (True: it did).

        Others: a loop, or blocking calls that read their own replies.
        Watching it too would wake this thread with every reply they take;
        instead it looks every READ_GRACE whether a loop still reads
        (running, with acalls waiting) and took what came, or, while only
        blocking calls read, every RECEIVE_SLICE whether one leads or has
        led since the last look: a leader runs no callbacks that could keep
        it from reading, and a long call should not wake this thread fifty
        times a second. A new reason to read (a waiter only it serves)
        wakes it at once.
        """
        with self._lock:
            if self._thread_must_read():
                return False
            turns = self._turns
            callers_read = self._leader is not None or turns != self._turns_looked
            self._turns_looked = turns
            loop_reads = self._a_loop_reads()
            if not callers_read and not loop_reads:
                return False
            seen = self._dispatched
            self._parked = True
            try:
                self._reader_wake.wait(READ_GRACE if loop_reads else RECEIVE_SLICE)
            finally:
                self._parked = False
            if self._thread_must_read() or self._dispatched != seen or self._turns != turns:
                return True  # look again
            if self._leader is None and not self._a_loop_reads():
                return True  # nobody reads now: the next look watches the descriptor
        # They took nothing: idle (a long call), or not reading after all
        # (a loop busy in a callback). Whatever is there goes the way below.
        # The look also keeps a child's stderr drained.
        return not self.transport.wait_ready(fd, 0)

    def _left_to_a_loop(self, seen: int) -> bool:
        """A message is there: leave it to an event loop (True), or read it.

        A loop reads everything while it has acalls waiting, and takes its
        own replies on its thread with no hand-off, so the reader thread
        leaves it to the loop while one reads, and looks again after a
        moment (READ_GRACE), not at every message. It reads itself, at
        once, when something only it serves is waiting (a call through
        start(), live output, the notices a blocking call catches up on,
        what an interrupted reader left), to report the transport's end,
        and when nobody else took anything since it began to wait (seen:
        _dispatched then), no blocking call leads and no loop reads: none
        has acalls waiting, or each such loop is stopped or closed. A loop
        or a leading call that took nothing in the moment (a loop busy in a
        callback, its reader removed) is no reader either.
        """
        with self._lock:
            if self._thread_must_read():
                return False
            if self._dispatched == seen and self._leader is None and not self._a_loop_reads():
                return False
            self._parked = True
            try:
                self._reader_wake.wait(READ_GRACE)
            finally:
                self._parked = False
            if self._thread_must_read():
                return False
            return self._dispatched != seen

    def _thread_must_read(self) -> bool:
        """Whether a waiter only the reader thread serves is pending (lock held)."""
        if self._hand_over or self._stopping or self._backlog or self._behind or self._live:
            return True
        return any(p.future is not None and _needs_thread(p.future) for p in self._pending.values())

    def _a_loop_reads(self) -> bool:
        """Whether a running loop with acalls waiting watches the descriptor (lock held)."""
        return any(reader.reading() for reader in list(self._loops.values()))

    def _nudge_reader(self) -> None:
        """Wake the reader thread from its grace, if that takes no waiting for the lock."""
        if self._lock.acquire(blocking=False):
            try:
                self._reader_wake.notify()
            finally:
                self._lock.release()

    def _wake_reader(self, *, hand_over: bool = False) -> bool:
        """Get the reader thread reading (hand_over: to report the end); False if it is gone."""
        with self._lock:
            if hand_over:
                self._hand_over = True
            self._reader_wake.notify()
        return self._reader.is_alive()

    def _dispatch_batch(self, batch: list[bytes]) -> bool:
        """Dispatch messages in order (_read_lock held); False once the connection died.

        An exception that is not the runtime's fault (a KeyboardInterrupt in
        a loop's callback, a logging handler that raises) must not lose what
        was read: the messages of the batch not yet dispatched are
        dispatched before it goes on its way, and those a second one cuts
        short are left to the next reader.
        """
        if self._backlog:
            batch = self._backlog + batch
            self._backlog = []
        done = 0
        try:
            for data in batch:
                if wire_log.isEnabledFor(DEBUG):
                    wire_log.debug("<- %s", _wire_text(data))
                try:
                    self._dispatch(data)
                except ProtocolError as exc:
                    done = len(batch)
                    self._die(exc)
                    return False
                done += 1
                # _count_dispatched, inline: once per message (issue 16)
                self._dispatched += 1
                if self._behind:
                    with self._lock:
                        self._caught_up.notify_all()
        except BaseException:
            # The message the exception cut short goes again: a reply
            # already claimed is settled now and not found twice, one not
            # yet is delivered.
            self._dispatch_rest(batch[done:])
            raise
        return True

    def _dispatch_rest(self, rest: list[bytes]) -> None:
        """Dispatch what an exception left of a batch, quietly; what it cannot, the next reader."""
        done = 0
        try:
            self._settle_claimed()
            for data in rest:
                try:
                    self._dispatch(data)
                except ProtocolError as exc:
                    done = len(rest)
                    self._die(exc)
                    return
                done += 1
                self._count_dispatched()
        finally:
            self._settle_claimed()
            if done < len(rest):
                self._backlog = rest[done:] + self._backlog
                if self._parked:
                    self._nudge_reader()

    def _count_dispatched(self) -> None:
        # Under _read_lock, as every dispatch: no other thread counts
        # meanwhile, and the others read it as a hint or under _lock. A
        # caller that begins to wait (_catch_up) raises _behind before it
        # looks at the count, so it sees this one or is notified.
        self._dispatched += 1
        if self._behind:
            with self._lock:
                self._caught_up.notify_all()

    def _dispatch(self, data: bytes) -> None:
        message = _compact_object(data)
        if message is None:
            message = _parse(data)
        if "method" in message:
            self._on_notification(message)
            return
        if "result" not in message and "error" not in message:
            raise ProtocolError(
                f"the runtime sent a message with no result or error: {_clip(data)}"
            )
        pending = self._claim(message)
        if pending is None or pending.future is None:
            return  # an answer nobody waits for any more (cancelled, timed out)
        # Claimed and not yet settled: an exception from here (a Ctrl-C
        # reaching a reader on the main thread) would lose the reply, so
        # the batch's way out settles it (_settle_claimed). Nothing is
        # called between the claim and this store.
        self._claimed = (pending, message, data)
        future = pending.future
        if (
            type(future) is _Waiter
            and "error" not in message
            and type(result := message.get("result")) is dict
        ):
            future.set_result(result)  # _deliver's outcome, in short (issue 16)
        else:
            _deliver(pending, message, data)
        self._claimed = None

    def _settle_claimed(self) -> None:
        """Settle the reply an exception cut short between claim and settle (_read_lock held).

        Settling twice is harmless: a future keeps its first outcome.
        """
        claimed, self._claimed = self._claimed, None
        if claimed is not None:
            _deliver(*claimed)

    def _claim(self, message: dict[str, Any]) -> _Pending | None:
        request_id = message.get("id")
        with self._lock:
            if isinstance(request_id, int) and not isinstance(request_id, bool):
                return self._pending.pop(request_id, None)
            error = message.get("error")
            too_large = isinstance(error, dict) and error.get("code") == MessageTooLarge.code
            # A call waiting itself gets its replies from the transport,
            # never from here.
            waiting = [k for k, p in self._pending.items() if p.future is not None]
            if request_id is None and too_large and waiting:
                # The runtime finds the id of a message it refused for its
                # size in the message's first 4 KiB; when it could not, the
                # largest request waiting is that message.
                key = max(waiting, key=lambda k: (self._pending[k].size, -k))
                return self._pending.pop(key)
        return None

    def _on_notification(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params")
        if not isinstance(params, dict):
            return
        if method == "tools/output":
            request_id, text = params.get("id"), params.get("text")
            with self._lock:
                live = self._live.get(request_id) if isinstance(request_id, int) else None
            if live is not None and isinstance(text, str):
                live.push(text)
            return
        if method != "session/notice":
            return  # future notifications
        session, text = params.get("session"), params.get("text")
        if isinstance(session, str) and isinstance(text, str):
            with self._lock:
                queued = self._notices.get(session)
                if queued is not None:
                    queued.append(text)

    def _die(self, exc: TransportError) -> None:
        with self._lock:
            if self._dead is None:
                self._dead = exc
            pending, self._pending = self._pending, {}
            self._caught_up.notify_all()
            if self._leader is None:
                self._close_lead_fds()  # else the leader does, as it steps down
        for p in pending.values():
            if p.future is not None:
                _settle(p.future, exception=_copy(exc))
        with self._lock:
            readers = list(self._loops.values())
        for reader in readers:
            with reader.lock:
                loop = reader.loop
                if not reader.watching or loop is None or loop.is_closed():
                    reader.release()  # nobody watches it, or its selector is gone
                    continue
            try:  # its loop stops watching, then closes it
                loop.call_soon_threadsafe(self._unwatch, reader)
            except RuntimeError:  # the loop closed meanwhile
                with reader.lock:
                    reader.release()

    # --- closing -------------------------------------------------------------------

    def close(self, shutdown_timeout: float = 5.0) -> None:
        """Shut the runtime down politely, close the transport, stop the reader.

        Safe to call twice and from two threads at once (an unclosed
        Runtime's finalizer and the exit hook): the second waits for the
        first to finish.
        """
        _live.discard(self)
        self._closing.set()
        if self.forked:
            self.transport.close()  # transports never touch a parent's runtime
            return
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            self._close(shutdown_timeout)

    def _close(self, shutdown_timeout: float) -> None:
        # Calls still in flight are given up: close kills what they run, so
        # cancelling them first lets shutdown answer at once instead of
        # waiting for each call (or for shutdown_timeout).
        with self._lock:
            in_flight = list(self._pending)
        for request_id in in_flight:
            self.cancel(request_id)
        # Dead or slow: closing the transport ends the runtime anyway.
        if self._dead is None:
            with contextlib.suppress(ShellportError):
                self.call("shutdown", {}, timeout=shutdown_timeout)
        # From here an end of output is the expected one, not ProcessExited.
        self._stopping = True
        if self._dead is None:
            with contextlib.suppress(ShellportError):
                self.notify("exit", {})
        try:
            self.transport.close()
        finally:
            self._reader.join(RECEIVE_SLICE * 10)
            self._die(TransportClosed(CLOSED))


_decoder = json.JSONDecoder()  # made once, as json.loads would use
_decode = _decoder.decode
_scan = _decoder.scan_once  # type: ignore[attr-defined]  # the C scanner json itself uses
_method_json: dict[str, bytes] = {}


def _request(request_id: int, method: str, params: Params) -> bytes:
    """One request, encoded; params already encoded (bytes) go in as they are."""
    if not isinstance(params, bytes):
        return encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    name = _method_json.get(method)
    if name is None:
        name = _method_json[method] = encode_string(method)
    return b'{"jsonrpc":"2.0","id":%d,"method":%s,"params":%s}' % (request_id, name, params)


def _compact_object(data: bytes) -> dict[str, Any] | None:
    """The message data holds when it is what the runtime sends: one compact JSON object.

    Scanning it directly skips json's two whitespace passes around it
    (issue 16). None for anything else (whitespace, trailing text, not JSON,
    not an object), which _parse decodes in full or words the error of.
    """
    try:
        text = data.decode("utf-8")
        message, end = _scan(text, 0)
    except (ValueError, StopIteration):  # UnicodeDecodeError is a ValueError
        return None
    if end != len(text) or type(message) is not dict:
        return None
    return message


def _parse(data: bytes) -> dict[str, Any]:
    """Decode one message from the runtime; ProtocolError if it is not a JSON object."""
    message = _compact_object(data)
    if message is not None:
        return message
    try:
        decoded = _decode(data.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError is one too
        raise ProtocolError(
            f"the runtime sent a line that is not JSON ({exc}): {_clip(data)}"
        ) from exc
    if not isinstance(decoded, dict):
        raise ProtocolError(f"the runtime sent JSON that is not an object: {_clip(data)}")
    return decoded


def _outcome(method: str, message: dict[str, Any], data: bytes) -> Result:
    """The result a reply carries, or the exception it stands for (raised)."""
    error = message.get("error")
    if error is not None:
        if not isinstance(error, dict):
            error = {"code": -32603, "message": f"malformed error object: {error!r}"}
        raise _rpc_error(error)
    result = message.get("result")
    if not isinstance(result, dict):
        raise ProtocolError(f"the result of {method} is not an object: {_clip(data)}")
    return result


def _settle(
    future: concurrent.futures.Future[Result] | _LoopFuture | _Waiter,
    *,
    result: Result | None = None,
    exception: BaseException | None = None,
) -> None:
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result if result is not None else {})
    except Exception as exc:
        import concurrent.futures  # loaded already: only its futures raise this

        if not isinstance(exc, concurrent.futures.InvalidStateError):
            raise
        # the waiter gave up (asyncio cancelled it)


def _deliver(pending: _Pending, message: dict[str, Any], data: bytes) -> None:
    """Settle a claimed reply's future with its result or the error it stands for."""
    assert pending.future is not None
    try:
        result = _outcome(pending.method, message, data)
    except ShellportError as exc:
        _settle(pending.future, exception=exc)
        return
    _settle(pending.future, result=result)


def _needs_thread(future: concurrent.futures.Future[Result] | _LoopFuture | _Waiter) -> bool:
    """Whether only the reader thread is sure to read the reply future waits for.

    A loop that watches the descriptor reads its own; a blocking call that
    reads (a _Waiter) reads its own or is served by the one that leads.
    """
    if type(future) is _LoopFuture:
        return not future.replies.watching
    return type(future) is not _Waiter


_monotonic = time.monotonic
_get_ident = threading.get_ident


def _no_reply(request_id: int, timeout: float | None) -> TransportError:
    """The error of a blocking call whose reply did not come within its timeout."""
    return TransportError(f"no reply to request {request_id} within {timeout:g} s")


def _copy(exc: TransportError) -> TransportError:
    """A fresh instance to raise, so tracebacks do not pile up on one object."""
    if isinstance(exc, ProcessExited):
        return ProcessExited(str(exc), returncode=exc.returncode, stderr=exc.stderr)
    return type(exc)(str(exc))


def _clip(data: bytes) -> str:
    text = data[:200].decode("utf-8", "replace")
    return text + ("…" if len(data) > 200 else "")


def _wire_text(data: bytes) -> str:
    text = data[:_WIRE_CLIP].decode("utf-8", "replace")
    if len(data) > _WIRE_CLIP:
        text += f"… ({len(data)} bytes)"
    return text


# Live connections, so a fork can mark them and exit can close them.
_live: weakref.WeakSet[Connection] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # The parent's connections are the parent's: exit must not close them
    # here (BaseTransport.check refuses their use by the process id).
    _live.clear()


def close_all() -> None:
    """Close every live connection (at interpreter exit)."""
    for conn in list(_live):
        with contextlib.suppress(Exception):  # exiting anyway
            conn.close(shutdown_timeout=2.0)


os.register_at_fork(after_in_child=_after_fork_in_child)
# A library-backed runtime dies with this process, and so would not kill the
# processes its tools started; closing it first does.
atexit.register(close_all)
