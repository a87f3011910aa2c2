"""The transport interface.

A transport moves whole JSON-RPC messages; it knows nothing of ids, pending
calls or sessions (the connection in ``_client.py`` does). This adapts the
``handle(request) -> response`` shape of the style guide to a message-level
protocol, where replies arrive out of order and the runtime also sends
notifications: ``send`` puts one message on the wire, ``receive`` takes the
next one off. There are no async twins: a transport that offers a
descriptor to watch (``reply_fd``, both built-in ones) is read by the event
loop of an ``acall`` itself, with ``receive_ready``; every other reader
(the connection's reader thread) takes messages the same way, so one
transport serves both ``call`` and ``acall``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Union

from .._exceptions import TransportClosed

Message = Union[bytes, Mapping[str, Any]]

#: What every use of a closed Runtime, Session or transport raises.
CLOSED = "this shellport runtime is closed and cannot be used again; create a new Runtime"

#: What every use of a runtime opened before fork() raises in the child.
FORKED = (
    "this shellport runtime was opened in process {owner} and cannot be used in its forked "
    "child {pid}: {why}; create a new Runtime in the child (transport 'auto' picks one that "
    "works there), or start children with multiprocessing's 'spawn' or 'forkserver' method"
)


# Made once: json.dumps with options builds a new encoder on every call.
_text_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_encode_ascii = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def _plain_dict_encoder(o: dict[str, Any]) -> bytes:
    try:
        return _text_encoder.encode(o).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: see encode()
        return _encode_ascii(o).encode("ascii")


def _direct_encoders() -> tuple[Callable[[Any], str], Callable[[dict[str, Any]], bytes]]:
    """_text_encoder.encode for a dict, without its Python layers (issue 16); and to bytes.

    JSONEncoder.encode goes through iterencode, which builds the C encoder
    anew on each call; one C encoder with the same options, built once,
    saves most of a small request's encoding time. Where the C encoder is missing or takes
    other arguments (another interpreter), the probe below fails and the
    plain encode is used. The second function is encode() of a dict in one
    call, as a tool's arguments are encoded on every call.
    """
    plain = _text_encoder.encode
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return plain, _plain_dict_encoder
    enc = _text_encoder
    default, basestring = enc.default, json.encoder.encode_basestring
    join = "".join
    # Without a circular-reference memo the C encoder keeps no state
    # between calls, so one serves every call and thread: building it
    # per call was most of what is left of a small request's encoding.
    # A circular reference then ends in RecursionError, and the plain
    # encoder says what is wrong (ValueError), as it always did.
    unchecked = make(None, default, basestring, None, ":", ",", False, False, False)

    def encode_text(o: Any) -> str:
        if type(o) is not dict:
            return plain(o)
        try:
            return join(unchecked(o, 0))
        except RecursionError:
            return plain(o)

    def encode_dict(o: dict[str, Any]) -> bytes:
        try:
            return join(unchecked(o, 0)).encode("utf-8")
        except RecursionError:
            return _plain_dict_encoder(o)
        except UnicodeEncodeError:  # a lone surrogate: see encode()
            return _encode_ascii(o).encode("ascii")

    probe = {"a": [1, 2.5, "x\u00e9\n", None, True], "b": {"c": -0.0}}
    try:
        if encode_text(probe) != plain(probe) or encode_dict(probe) != plain(probe).encode():
            return plain, _plain_dict_encoder
    except Exception:  # a C encoder of another shape
        return plain, _plain_dict_encoder
    return encode_text, encode_dict


_encode_text, encode_dict = _direct_encoders()


def encode(message: Message) -> bytes:
    """Encode a message as one compact line of UTF-8 JSON (no newline)."""
    if type(message) is dict:  # nearly always: spare the isinstance below
        return encode_dict(message)
    if isinstance(message, (bytes, bytearray)):
        return bytes(message)
    text = _encode_text(message)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8. As a \\u escape the message still
        # travels, and the runtime refuses the string in the same words on
        # every transport (an isError result naming the argument, or
        # invalid params) instead of running it with U+FFFD in its place.
        return _encode_ascii(message).encode("ascii")


def encode_string(text: str) -> bytes:
    """One JSON string, encoded as encode would put it in a message."""
    try:
        return _text_encoder.encode(text).encode("utf-8")
    except UnicodeEncodeError:
        return _encode_ascii(text).encode("ascii")


# This process's id, kept current by the fork hook below: check() runs
# several times per call, and os.getpid() is a system call each time (glibc
# keeps no copy), a few microseconds of every acall (issue 16). Every way
# CPython lets Python code run in a forked child (os.fork, os.forkpty,
# multiprocessing, subprocess's preexec_fn) runs after-fork hooks first.
_pid = os.getpid()


def _refresh_pid() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_refresh_pid)


class BaseTransport:
    """One connection to a runtime, carrying whole messages.

    Implementations are used by several threads at once: any thread may
    ``send`` (they serialise internally) while one reader at a time (the
    connection's reader thread or an event loop, under the connection's
    read lock) takes messages with ``receive_many`` or ``receive_ready``.

    ``check()`` is the one guard against a closed transport and against use
    in a process forked after it opened; the connection above calls it
    before every request, and the built-in transports before every send
    and receive. A subclass that calls ``super().__init__()`` and sets
    ``self.closed`` in ``close()`` gets it for free; one that does not is
    still bound to the process that opens a Runtime over it.
    """

    #: What Runtime.transport_name reports for this transport.
    name: str = "custom"

    #: Why a forked child cannot use this transport (completes FORKED).
    fork_reason: str = "the connection to its runtime belongs to the parent"

    #: Set by close(); check() then raises TransportClosed.
    closed: bool = False

    #: The process this transport belongs to (None: not yet bound).
    _owner_pid: int | None = None

    def __init__(self) -> None:
        self._owner_pid = _pid
        self.closed = False

    def _bind(self) -> None:
        """Tie this transport to the current process, if nothing has yet."""
        if self._owner_pid is None:
            self._owner_pid = _pid

    @property
    def forked(self) -> bool:
        """True in a process forked after this transport was opened."""
        return self._owner_pid is not None and self._owner_pid != _pid

    def check(self) -> None:
        """Raise TransportClosed if this process can no longer use the transport.

        It takes no lock: after fork() a lock may be held by a thread that
        does not exist in the child.
        """
        owner = self._owner_pid
        if owner is not None and owner != _pid:
            raise TransportClosed(FORKED.format(owner=owner, pid=os.getpid(), why=self.fork_reason))
        if self.closed:
            raise TransportClosed(CLOSED)

    def send(self, message: Message) -> None:
        """Send one message; raise TransportError if the runtime is gone."""
        raise NotImplementedError

    #: True when the transport also implements start_call, wait_call and
    #: forget_call: a blocking call then waits for its own reply in the
    #: calling thread instead of through the reader thread (issue 16).
    sync_calls: bool = False

    def start_call(self, data: bytes) -> int:
        """Send a request whose reply only wait_call returns; its ticket (0: none comes)."""
        raise NotImplementedError

    def start_wait_call(self, data: bytes, timeout: float) -> tuple[int, bytes | None, int]:
        """start_call, then wait_call for at most timeout: (ticket, reply or None, queued).

        A transport that can do both in one step overrides it (the library,
        with one crossing).
        """
        ticket = self.start_call(data)
        got = self.wait_call(ticket, timeout)
        return (ticket, None, 0) if got is None else (ticket, got[0], got[1])

    def wait_call(self, ticket: int, timeout: float) -> tuple[bytes, int] | None:
        """The reply of ticket and how many messages receive had before it, or None.

        None means no reply within timeout seconds; once no reply can ever
        come it raises TransportError (often TransportClosed).
        """
        raise NotImplementedError

    def forget_call(self, ticket: int) -> None:
        """Give up on the reply of ticket; never raises."""
        raise NotImplementedError

    def receive(self, timeout: float) -> bytes | None:
        """Return the next message, or None if none arrived within timeout seconds.

        Raises TransportError (often ProcessExited or TransportClosed) once no
        more messages can ever arrive.
        """
        raise NotImplementedError

    def receive_many(self, timeout: float) -> list[bytes]:
        """Return the next message and those already behind it ([] on timeout).

        The reader thread takes messages this way; a transport that can
        hand over a burst in one go (the library) saves a crossing and a
        wake-up per message. This default takes one, through receive.
        """
        data = self.receive(timeout)
        return [] if data is None else [data]

    def reply_fd(self) -> int | None:
        """A new descriptor, readable when receive_ready may have messages; None: none.

        The caller owns it and closes it. It is readable while messages
        wait and once the transport has ended, so an event loop can watch
        it (``add_reader``) and read replies on its own thread, and the
        reader thread can wait on it without holding a lock (issue 16). A
        transport that has none (the default) is read by the reader thread
        alone, through receive_many.
        """
        return None

    #: True when wait_ready takes wake: a blocking call over this transport
    #: then reads the replies itself (the connection's leader) instead of
    #: waiting for the reader thread to hand its reply over (issue 16).
    callers_read: bool = False

    def wait_ready(self, fd: int, timeout: float, wake: int = -1) -> bool:
        """Wait up to timeout seconds for fd (from reply_fd) to be readable.

        The reader thread and a blocking call that reads its own reply wait
        here; the latter also passes wake, a descriptor that ends the wait
        when it is readable (the call's reply was taken by another reader).
        True when fd or wake is readable. A transport with more to watch (a
        child's stderr) overrides it.
        """
        import select

        watched = [fd] if wake < 0 else [fd, wake]
        return bool(select.select(watched, [], [], timeout)[0])

    def receive_ready(self) -> list[bytes] | None:
        """The messages there now, without waiting ([] if none).

        None means the transport has ended and receive_many, which may
        wait for the rest of the story (a child's exit status), reports
        how; it raises TransportError (often TransportClosed) if that is
        known at once. Called by one thread at a time.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Release the runtime and everything it started. Safe to call twice."""
        raise NotImplementedError

    def __enter__(self) -> BaseTransport:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
