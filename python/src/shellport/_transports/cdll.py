"""The library transport: the Go runtime loaded into this process with ctypes.

The shared library is loaded once per process and never unloaded (a process
can hold one Go runtime, and Go libraries cannot be unloaded). ctypes.CDLL
releases the GIL during every foreign call, and no call blocks for long:
``receive`` waits at most its timeout, so the reader thread stays responsive.

After ``os.fork()`` the child has only the forking thread, so the Go runtime
inside the inherited library is dead there and any call into it could hang
forever. The library and every transport remember the process that
opened them, and in another one raise TransportClosed without touching the
library (inherited_reason, BaseTransport.check); the fork hook below only
replaces the load lock.
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import byref

from .._exceptions import LibraryNotFound, ProtocolError, TransportClosed, TransportError
from .._native import foreign_file_hint
from .base import BaseTransport, Message, encode


class _Reply(ctypes.c_char_p):
    """A string the library returned, as its pointer: read with .value, then freed.

    As a restype, a subclass of c_char_p comes back as itself, not as bytes,
    so the same object reads the string (one C getter, where string_at is a
    Python function and a foreign call) and goes back to shellport_free.
    """


class _Library:
    """The loaded library with its C signatures declared."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise LibraryNotFound(
                f"cannot load the shellport library {path!r}: {exc}. {foreign_file_hint(path)}"
            ) from exc
        try:
            self.open = lib.shellport_open
            self.send = lib.shellport_send
            self.recv = lib.shellport_recv
            self.close = lib.shellport_close
            self.free = lib.shellport_free
            self.start = lib.shellport_start
            self.wait = lib.shellport_wait
            self.forget = lib.shellport_forget
            self.start_wait = lib.shellport_start_wait
            self.recv_many = lib.shellport_recv_many
            # Newer than the rest: a library without it is read by a thread.
            self.ready_fd = getattr(lib, "shellport_ready_fd", None)
            self._version = lib.shellport_version
        except AttributeError as exc:
            raise LibraryNotFound(
                f"{path!r} loaded, but it is not a shellport library: {exc}"
            ) from exc
        self.open.argtypes, self.open.restype = [ctypes.c_char_p], ctypes.c_longlong
        self.send.argtypes, self.send.restype = [ctypes.c_longlong, ctypes.c_char_p], ctypes.c_int
        self.recv.argtypes, self.recv.restype = [ctypes.c_longlong, ctypes.c_int], ctypes.c_void_p
        self.recv_many.argtypes = [ctypes.c_longlong, ctypes.c_int, ctypes.c_int]
        self.recv_many.restype = ctypes.c_void_p
        self.close.argtypes, self.close.restype = [ctypes.c_longlong], ctypes.c_int
        self.free.argtypes, self.free.restype = [ctypes.c_void_p], None
        self.start.argtypes = [ctypes.c_longlong, ctypes.c_char_p]
        self.start.restype = ctypes.c_longlong
        self.wait.argtypes = [
            ctypes.c_longlong,
            ctypes.c_longlong,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_ulonglong),
        ]
        self.wait.restype = ctypes.c_void_p
        self.start_wait.argtypes = [
            ctypes.c_longlong,
            ctypes.c_char_p,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_longlong),
            ctypes.POINTER(ctypes.c_ulonglong),
        ]
        self.start_wait.restype = ctypes.c_void_p
        self.forget.argtypes, self.forget.restype = (
            [ctypes.c_longlong, ctypes.c_longlong],
            ctypes.c_int,
        )
        self._version.argtypes, self._version.restype = [], ctypes.c_void_p
        if self.ready_fd is not None:
            self.ready_fd.argtypes, self.ready_fd.restype = [ctypes.c_longlong], ctypes.c_int
        # What a blocking call goes through on every call (issue 16), declared
        # without argtypes: ctypes then converts nothing per call (it would
        # call each argtype's from_param and make an object for each), and
        # the callers pass exactly the C types: the handle as a c_longlong,
        # the request as bytes, the timeout as an int (a C int), ticket and
        # queued by reference. The declared functions above stay for the rest.
        self.start_wait_raw = lib["shellport_start_wait"]
        self.start_wait_raw.restype = _Reply
        self.free_raw = lib["shellport_free"]
        self.free_raw.restype = None

    def take(self, pointer: int | None) -> bytes | None:
        """Copy a string the library returned and free it."""
        if not pointer:
            return None
        try:
            return ctypes.string_at(pointer)
        finally:
            self.free(pointer)

    def version(self) -> str:
        data = self.take(self._version())
        return "" if data is None else data.decode("utf-8", "replace")


class _Cells:
    """What shellport_start_wait writes its ticket and queued count to, by reference.

    Made once per blocking call running at a time and reused (issue 16):
    the library writes the ticket on every call, and queued with every
    reply, so nothing needs resetting between calls.
    """

    __slots__ = ("queued", "queued_ref", "ticket", "ticket_ref")

    def __init__(self) -> None:
        self.ticket = ctypes.c_longlong(0)
        self.queued = ctypes.c_ulonglong(0)
        self.ticket_ref = byref(self.ticket)
        self.queued_ref = byref(self.queued)


#: At most this many messages per shellport_recv_many.
RECEIVE_BATCH = 256

_load_lock = threading.Lock()
_library: _Library | None = None
_loaded_in_pid: int | None = None


def _after_fork_in_child() -> None:
    global _load_lock
    # The lock may have been held by another thread at fork time; that
    # thread does not exist here, so it would never be released.
    _load_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def inherited_reason() -> str | None:
    """Return why the library cannot be used in this process, or None.

    It cannot once it was loaded by a parent that then forked this process.
    """
    if _library is not None and _loaded_in_pid != os.getpid():
        return (
            f"the shellport library was loaded in process {_loaded_in_pid} before it "
            f"forked this process ({os.getpid()}), and its Go runtime does not survive "
            "fork(); use transport='process' here"
        )
    return None


def load_library(path: str) -> _Library:
    """Load the library once per process; a second, different path is refused."""
    global _library, _loaded_in_pid
    with _load_lock:
        reason = inherited_reason()
        if reason is not None:
            raise TransportClosed(reason)
        real = os.path.realpath(path)
        if _library is None:
            _library = _Library(real)
            _loaded_in_pid = os.getpid()
        elif _library.path != real:
            raise TransportError(
                f"a shellport library is already loaded from {_library.path!r}; a process "
                f"can hold only one Go runtime, so {real!r} cannot be loaded too."
            )
        return _library


class CDLLTransport(BaseTransport):
    """Messages through the C ABI of libshellport (shellport_send / shellport_recv)."""

    name = "library"
    sync_calls = True
    fork_reason = "the Go runtime inside the shared library does not survive fork()"

    def __init__(self, path: str) -> None:
        super().__init__()
        self._lib = load_library(path)
        handle = int(self._lib.open(None))
        if handle <= 0:
            raise TransportError(
                f"shellport_open in {path!r} returned {handle}: the library failed"
            )
        self._handle = handle
        self._c_handle = ctypes.c_longlong(handle)  # as start_wait_raw takes it
        self._cells: list[_Cells] = []  # start_wait_call's, free for the next call
        # reply_fd and close never overlap: a descriptor number the library
        # has just closed could belong to another file by the time it is
        # duplicated.
        self._fd_lock = threading.Lock()

    @property
    def library_version(self) -> str:
        """The version the library reports."""
        return self._lib.version()

    def send(self, message: Message) -> None:
        # The connection sends requests encoded already (bytes).
        data = message if type(message) is bytes else encode(message)
        if 0 in data:  # a raw NUL
            raise ProtocolError("a message for the C ABI cannot contain a raw NUL byte")
        self.check()
        rc = self._lib.send(self._handle, data)
        if rc == -1:
            self.check()
            raise TransportClosed(f"the library no longer knows handle {self._handle}")
        if rc != 0:
            raise TransportError(f"shellport_send failed with status {rc}")

    def receive(self, timeout: float) -> bytes | None:
        self.check()
        ms = max(0, min(int(timeout * 1000), 60_000))
        data = self._lib.take(self._lib.recv(self._handle, ms))
        if data is None:
            self.check()  # NULL is also how a closed handle answers
        return data

    def receive_many(self, timeout: float) -> list[bytes]:
        self.check()
        ms = max(0, min(int(timeout * 1000), 60_000))
        data = self._lib.take(self._lib.recv_many(self._handle, ms, RECEIVE_BATCH))
        if data is None:
            self.check()  # NULL is also how a closed handle answers
            return []
        return data.split(b"\n")  # one message per line: none holds a newline

    def reply_fd(self) -> int | None:
        # A duplicate of shellport_ready_fd's descriptor, which the library
        # closes with the handle: the caller's copy stays valid (and
        # readable) until the caller has stopped watching it.
        ready_fd = self._lib.ready_fd
        if ready_fd is None:
            return None
        self.check()  # first: in a forked child _fd_lock may be held by a thread now gone
        with self._fd_lock:
            self.check()
            fd = int(ready_fd(self._handle))
            if fd < 0:
                self.check()
                return None  # the library could not make one: a thread reads instead
            return os.dup(fd)

    def receive_ready(self) -> list[bytes] | None:
        self.check()
        data = self._lib.take(self._lib.recv_many(self._handle, 0, RECEIVE_BATCH))
        if data is None:
            self.check()  # NULL is also how a closed handle answers
            return []
        return data.split(b"\n")

    def start_call(self, data: bytes) -> int:
        if 0 in data:  # a raw NUL
            raise ProtocolError("a message for the C ABI cannot contain a raw NUL byte")
        self.check()
        ticket = int(self._lib.start(self._handle, data))
        if ticket == -1:
            self.check()
            raise TransportClosed(f"the library no longer knows handle {self._handle}")
        if ticket < 0:
            raise TransportError(f"shellport_start failed with status {ticket}")
        return ticket

    def start_wait_call(self, data: bytes, timeout: float) -> tuple[int, bytes | None, int]:
        # One crossing (shellport_start_wait) where start_call and
        # wait_call take two: an editor call's reply is there when the
        # request has been delivered (issue 16). Every blocking call comes
        # through here, so it converts nothing per call (see
        # _Library.start_wait_raw) and reuses its ticket and queued cells.
        if 0 in data:  # a raw NUL (b"\0" in data raises and clears a TypeError first)
            raise ProtocolError("a message for the C ABI cannot contain a raw NUL byte")
        self.check()
        ms = int(timeout * 1000)
        if ms > 60_000:
            ms = 60_000
        elif ms < 0:
            ms = 0
        try:
            cells = self._cells.pop()
        except IndexError:  # as many as calls run at once
            cells = _Cells()
        lib = self._lib
        try:
            reply = lib.start_wait_raw(self._c_handle, data, ms, cells.ticket_ref, cells.queued_ref)
        except BaseException:
            # Ctrl-C as the call returned: the reply, if any, is given up.
            if cells.ticket.value > 0:
                lib.forget(self._handle, cells.ticket.value)
            raise
        text = reply.value
        t = cells.ticket.value
        if text is not None:
            lib.free_raw(reply)
            got = t, text, cells.queued.value
            self._cells.append(cells)
            return got
        self._cells.append(cells)
        if t == -1:
            self.check()
            raise TransportClosed(f"the library no longer knows handle {self._handle}")
        if t <= 0:
            raise TransportError(f"shellport_start_wait failed with status {t}")
        self.check()  # NULL is also how a handle closed meanwhile answers
        return t, None, 0

    def wait_call(self, ticket: int, timeout: float) -> tuple[bytes, int] | None:
        self.check()
        ms = max(0, min(int(timeout * 1000), 60_000))
        queued = ctypes.c_ulonglong(0)
        data = self._lib.take(self._lib.wait(self._handle, ticket, ms, ctypes.byref(queued)))
        if data is None:
            self.check()  # NULL is also how a closed handle answers
            return None
        return data, queued.value

    def forget_call(self, ticket: int) -> None:
        if not (self.closed or self.forked):
            self._lib.forget(self._handle, ticket)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.forked:
            return  # never call into a Go runtime that did not survive fork()
        with self._fd_lock:
            self._lib.close(self._handle)


# shellport/__init__.py presents its public classes as shellport.X; this one loads
# on first use (issue 16), so it says so itself.
CDLLTransport.__module__ = "shellport"
