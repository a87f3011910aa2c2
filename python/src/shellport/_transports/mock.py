"""A transport that answers from a Python function, for testing client code.

``MockTransport(handler)`` calls ``handler(message)`` for every message the
client sends, on the reader thread, and delivers what it returns: a reply or
notification dict, a list of them, or None for nothing. The handler may be a
plain function or an ``async def`` (run to completion with ``asyncio.run``).
"""

from __future__ import annotations

import inspect
import json
import queue
import threading
from collections.abc import Awaitable
from typing import Any, Callable, Union

from .base import BaseTransport, Message, encode

Reply = Union[dict[str, Any], list[dict[str, Any]], None]
Handler = Callable[[dict[str, Any]], Union[Reply, Awaitable[Reply]]]


class MockTransport(BaseTransport):
    """Answers every message with ``handler(message)``; nothing native is involved."""

    name = "mock"

    def __init__(self, handler: Handler) -> None:
        super().__init__()
        self._handler = handler
        self._inbox: queue.Queue[bytes | None] = queue.Queue()
        self._outbox: list[bytes] = []
        self._lock = threading.Lock()
        #: Every message the client sent, decoded, in order.
        self.sent: list[dict[str, Any]] = []

    def send(self, message: Message) -> None:
        self.check()
        data = encode(message)
        with self._lock:
            self.sent.append(json.loads(data))
        self._inbox.put(data)

    def push(self, message: Message) -> None:
        """Deliver a message to the client as if the runtime had sent it."""
        with self._lock:
            self._outbox.append(encode(message))
        self._inbox.put(None)  # wake the reader

    def receive(self, timeout: float) -> bytes | None:
        while True:
            with self._lock:
                if self._outbox:
                    return self._outbox.pop(0)
            self.check()
            try:
                data = self._inbox.get(timeout=timeout)
            except queue.Empty:
                return None
            if data is None:
                continue
            replies = self._answer(json.loads(data))
            with self._lock:
                self._outbox.extend(encode(r) for r in replies)
            if not replies:
                return None

    def _answer(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        out = self._handler(message)
        if inspect.isawaitable(out):
            import asyncio  # only for async handlers; it is slow to import

            out = asyncio.run(_wait(out))
        if out is None:
            return []
        return list(out) if isinstance(out, list) else [out]

    def close(self) -> None:
        self.closed = True
        self._inbox.put(None)


async def _wait(awaitable: Awaitable[Reply]) -> Reply:
    return await awaitable


# shellport/__init__.py presents its public classes as shellport.X; this one loads
# on first use (issue 16), so it says so itself.
MockTransport.__module__ = "shellport"
