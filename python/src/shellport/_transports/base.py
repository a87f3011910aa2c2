"""The transport interface.

A transport moves whole JSON-RPC messages; it knows nothing of ids, pending
calls or sessions (the connection in ``_client.py`` does). This adapts the
``handle(request) -> response`` shape of the style guide to a message-level
protocol, where replies arrive out of order and the runtime also sends
notifications: ``send`` puts one message on the wire, ``receive`` takes the
next one off. There are no async twins: a Runtime runs one reader thread per
transport and ``Session.acall`` awaits the same futures that thread resolves,
so the blocking transport serves both ``call`` and ``acall``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Union

Message = Union[bytes, Mapping[str, Any]]


def encode(message: Message) -> bytes:
    """Encode a message as one compact line of UTF-8 JSON (no newline)."""
    if isinstance(message, (bytes, bytearray)):
        return bytes(message)
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8. As a \\u escape the message still
        # travels, and the runtime refuses the string in the same words on
        # every transport (an isError result naming the argument, or
        # invalid params) instead of running it with U+FFFD in its place.
        return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")


class BaseTransport:
    """One connection to a runtime, carrying whole messages.

    Implementations are used by two threads at once: any thread may ``send``
    (they serialise internally) while one reader thread calls ``receive``.
    """

    #: What Runtime.transport_name reports for this transport.
    name: str = "custom"

    def send(self, message: Message) -> None:
        """Send one message; raise TransportError if the runtime is gone."""
        raise NotImplementedError

    def receive(self, timeout: float) -> bytes | None:
        """Return the next message, or None if none arrived within timeout seconds.

        Raises TransportError (often ProcessExited or TransportClosed) once no
        more messages can ever arrive.
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
