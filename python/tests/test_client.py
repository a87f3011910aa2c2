"""Client-side logic against MockTransport: routing, matching and malformed replies.

These check the Python connection alone; everything about the runtime is
tested against the real native builds in the other files.
"""

from __future__ import annotations

import os
import queue
import threading
from typing import Any

import pytest

import shellport
from shellport._client import Connection
from shellport._models import parse_tool_result
from shellport._transports.base import BaseTransport, Message

Msg = dict[str, Any]
INIT = {
    "protocolVersion": 1,
    "serverInfo": {"name": "shellport", "version": "0.1.0"},
    "profile": "oneshot",
    "tools": ["t"],
}


def runtime(answer: Any) -> shellport.Runtime:
    """A Runtime over a mock whose initialize and session/new work."""

    def handler(msg: Msg) -> Any:
        if msg.get("method") == "initialize":
            return {"jsonrpc": "2.0", "id": msg["id"], "result": INIT}
        if msg.get("method") == "session/new":
            return {"jsonrpc": "2.0", "id": msg["id"], "result": {"session": "s1", "cwd": "/"}}
        if msg.get("method") in ("shutdown", "session/close"):
            return {"jsonrpc": "2.0", "id": msg["id"], "result": {}}
        return answer(msg)

    return shellport.Runtime(transport=shellport.MockTransport(handler))


def text_result(msg: Msg, text: str) -> Msg:
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


def test_mock_transport_round_trip() -> None:
    with runtime(lambda m: text_result(m, "hi")) as rt:
        assert rt.transport_name == "mock"
        assert rt.session("/").call("t", {}).text == "hi"


def test_async_handler() -> None:
    async def answer(msg: Msg) -> Msg:
        return text_result(msg, "from a coroutine")

    with runtime(answer) as rt:
        assert rt.session("/").call("t").text == "from a coroutine"


def test_notice_before_reply_is_queued() -> None:
    def answer(msg: Msg) -> list[Msg]:
        notice = {"session": "s1", "text": "task 3 finished"}
        stray = {"session": "other", "text": "dropped"}
        return [
            {"jsonrpc": "2.0", "method": "session/notice", "params": notice},
            {"jsonrpc": "2.0", "method": "session/notice", "params": stray},
            {"jsonrpc": "2.0", "method": "tools/output", "params": {"callId": "x", "data": "."}},
            text_result(msg, "ok"),
        ]

    with runtime(answer) as rt:
        s = rt.session("/")
        s.call("t")
        assert s.notices() == ["task 3 finished"]


def test_too_large_error_without_id_fails_the_largest_pending_call() -> None:
    transport: shellport.MockTransport

    def answer(msg: Msg) -> Msg | None:
        if "blob" in msg["params"]["arguments"]:
            error = {"code": -32004, "message": "message too large"}
            return {"jsonrpc": "2.0", "id": None, "error": error}
        return text_result(msg, "small")

    with runtime(answer) as rt:
        s = rt.session("/")
        with pytest.raises(shellport.MessageTooLarge):
            s.call("t", {"blob": "x" * 100_000})
        assert s.call("t", {}).text == "small"
        transport = rt._connection().transport  # type: ignore[assignment]
        assert [m.get("method") for m in transport.sent][-2:] == ["tools/call", "tools/call"]


def test_unknown_error_code_is_a_plain_rpc_error() -> None:
    def answer(msg: Msg) -> Msg:
        error = {"code": -32099, "message": "something new", "data": {"hint": 1}}
        return {"jsonrpc": "2.0", "id": msg["id"], "error": error}

    with runtime(answer) as rt, pytest.raises(shellport.RPCError) as info:
        rt.session("/").call("t")
    assert type(info.value) is shellport.RPCError
    assert (info.value.code, info.value.message, info.value.data) == (
        -32099,
        "something new",
        {"hint": 1},
    )


def test_result_that_is_not_an_object() -> None:
    rt = runtime(lambda m: {"jsonrpc": "2.0", "id": m["id"], "result": [1, 2]})
    with rt, pytest.raises(shellport.ProtocolError, match="not an object"):
        rt.session("/").call("t")


def test_garbage_from_the_runtime_breaks_the_connection() -> None:
    rt = runtime(lambda m: None)
    s = rt.session("/")
    rt._connection().transport.push(b"this is not json")  # type: ignore[attr-defined]
    with pytest.raises(shellport.ProtocolError, match="not JSON"):
        s.call("t")
    with pytest.raises(shellport.ProtocolError):
        s.call("t")
    rt.close()


def test_tool_result_parsing() -> None:
    r = parse_tool_result(
        {
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image"},
                {"type": "text", "text": "b"},
            ],
            "isError": True,
        }
    )
    assert (r.text, r.is_error, r.meta, r.presentation) == ("a\nb", True, {}, {})
    with pytest.raises(shellport.ProtocolError):
        parse_tool_result({"isError": False})
    with pytest.raises(AttributeError):
        r.text = "changed"  # type: ignore[misc]


def test_tool_name_must_be_a_string() -> None:
    with runtime(lambda m: text_result(m, "x")) as rt, pytest.raises(TypeError):
        rt.session("/").call("")


@pytest.mark.parametrize("heartbeat_ms", [None, 200])
def test_pings_only_when_initialize_asks(heartbeat_ms: int | None) -> None:
    """Issue 15: heartbeatMs in the answer to initialize starts $/ping
    notifications, four per interval, until close; without it none are sent."""
    import threading
    import time

    init = dict(INIT, heartbeatMs=heartbeat_ms) if heartbeat_ms else INIT
    pinged = threading.Event()

    def handler(msg: Msg) -> Any:
        if msg.get("method") == "$/ping":
            pinged.set()
            return None
        if msg.get("method") == "initialize":
            return {"jsonrpc": "2.0", "id": msg["id"], "result": init}
        return {"jsonrpc": "2.0", "id": msg["id"], "result": {}}

    mock = shellport.MockTransport(handler)
    rt = shellport.Runtime(transport=mock)
    assert rt.version == "0.1.0"
    assert pinged.wait(10 if heartbeat_ms else 1) == bool(heartbeat_ms)
    rt.close()
    sent = len(mock.sent)
    time.sleep(0.3)  # six ping periods: none may come after close
    assert len(mock.sent) == sent, "pings went on after close"
    pings = [m for m in mock.sent if m.get("method") == "$/ping"]
    assert all(m == {"jsonrpc": "2.0", "method": "$/ping", "params": {}} for m in pings)


# --- structure (issue 11) -------------------------------------------------------------


def test_issue11_session_does_not_import_the_runtime() -> None:
    # Session holds its connection; only Runtime knows Session, not back
    # (the name Runtime is imported for an annotation, under TYPE_CHECKING).
    import ast
    from pathlib import Path

    import shellport._session

    source = Path(shellport._session.__file__).read_text()
    tree = ast.parse(source)
    for node in tree.body:  # module level, outside `if TYPE_CHECKING:`
        if isinstance(node, ast.ImportFrom):
            assert node.module != "_runtime", ast.unparse(node)
    assert "self._runtime._" not in source


def test_issue11_one_guard_for_closed_and_forked_transports() -> None:
    class Bare(shellport.BaseTransport):
        """A custom transport that never calls BaseTransport.__init__."""

        def __init__(self) -> None:
            pass

        def send(self, message: object) -> None:
            pass

        def receive(self, timeout: float) -> bytes | None:
            return None

        def close(self) -> None:
            self.closed = True

    bare = Bare()
    assert bare._owner_pid is None
    rt = shellport.Runtime(transport=bare)
    conn = Connection(bare)  # what a Runtime does when it opens
    try:
        assert bare._owner_pid == os.getpid()
        bare._owner_pid = os.getpid() + 1  # as it looks in a forked child
        with pytest.raises(shellport.TransportClosed, match="forked child") as forked:
            conn.check()
        assert "create a new Runtime in the child" in str(forked.value)
        bare._owner_pid = os.getpid()
    finally:
        conn.close(shutdown_timeout=0.1)
    rt.close()
    mock = shellport.MockTransport(lambda msg: None)
    mock.close()
    for transport in (bare, mock):
        with pytest.raises(shellport.TransportClosed) as closed:
            transport.check()
        assert str(closed.value) == (
            "this shellport runtime is closed and cannot be used again; create a new Runtime"
        )


# --- issue 18: what mutation testing found unchecked ------------------------------------


def test_issue18_cancel_sends_the_cancel_notification() -> None:
    rt = runtime(lambda m: None)
    with rt:
        conn = rt._connection()
        mock = conn.transport
        assert isinstance(mock, shellport.MockTransport)
        conn.cancel(42)
        sent = [m for m in mock.sent if m.get("method") == "$/cancelRequest"]
        assert sent == [{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 42}}]
    conn.cancel(43)  # on a closed connection: best effort, never raises


def test_issue18_a_dead_connection_raises_copies_with_every_fact() -> None:
    from shellport._client import _copy

    dead = shellport.ProcessExited("the runtime exited", returncode=-9, stderr="last words")
    first, second = _copy(dead), _copy(dead)
    assert first is not dead  # fresh tracebacks each time
    assert first is not second
    for copy in (first, second):
        assert type(copy) is shellport.ProcessExited
        assert (str(copy), copy.returncode, copy.stderr) == (
            "the runtime exited",
            -9,
            "last words",
        )
    closed = _copy(shellport.TransportClosed("closed"))
    assert type(closed) is shellport.TransportClosed
    assert str(closed) == "closed"


@pytest.mark.parametrize("size", [199, 200, 201, 300])
def test_issue18_garbage_is_quoted_clipped_and_never_fails_to_decode(size: int) -> None:
    garbage = (b"\xff garbage " + b"y" * size)[:size]
    rt = runtime(lambda m: None)
    s = rt.session("/")
    rt._connection().transport.push(garbage)  # type: ignore[attr-defined]
    with pytest.raises(shellport.ProtocolError) as info:
        s.call("t")
    shown = garbage[:200].decode("utf-8", "replace") + ("…" if size > 200 else "")
    assert str(info.value).endswith(": " + shown)
    rt.close()


def test_issue18_a_notice_without_text_or_session_is_dropped() -> None:
    def answer(msg: Msg) -> list[Msg]:
        return [
            {"jsonrpc": "2.0", "method": "session/notice", "params": {"session": "s1", "text": 5}},
            {"jsonrpc": "2.0", "method": "session/notice", "params": {"session": 1, "text": "x"}},
            {"jsonrpc": "2.0", "method": "session/notice", "params": {"session": "s1"}},
            {
                "jsonrpc": "2.0",
                "method": "session/notice",
                "params": {"session": "s1", "text": "ok"},
            },
            text_result(msg, "done"),
        ]

    with runtime(answer) as rt:
        s = rt.session("/")
        s.call("t")
        assert s.notices() == ["ok"]


def test_issue18_heartbeat_pings_four_times_per_interval_on_a_daemon_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The period (a quarter of the interval, at least 25 ms) and the thread the
    pinging runs on; the pings themselves are test_pings_keep_an_idle_runtime_alive's."""
    seen: queue.Queue[tuple[float, str, bool]] = queue.Queue()

    def loop(period: float) -> None:
        me = threading.current_thread()
        seen.put((period, me.name, me.daemon))

    with runtime(lambda m: None) as rt:
        conn = rt._connection()
        monkeypatch.setattr(conn, "_ping_loop", loop)
        conn.start_heartbeat(1.0)
        assert seen.get(timeout=30) == (0.25, "shellport-heartbeat", True)
        conn.start_heartbeat(0.01)
        assert seen.get(timeout=30)[0] == 0.025


class _RawSyncTransport(BaseTransport):
    """A transport with sync_calls whose replies are given bytes, as a runtime could send them."""

    name = "raw-sync"
    sync_calls = True

    def __init__(self, replies: list[bytes]) -> None:
        super().__init__()
        self.replies = replies
        self._idle = threading.Event()  # never set: the reader thread's wait

    def send(self, message: Message) -> None:
        self.check()

    def receive(self, timeout: float) -> bytes | None:
        self.check()
        self._idle.wait(timeout)
        return None

    def start_wait_call(self, data: bytes, timeout: float) -> tuple[int, bytes | None, int]:
        self.check()
        if not self.replies:  # close()'s shutdown
            return 1, b'{"jsonrpc":"2.0","id":0,"result":{}}', 0
        return 1, self.replies.pop(0), 0

    def forget_call(self, ticket: int) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_issue16_a_blocking_call_takes_every_reply_as_the_general_checks_do() -> None:
    """The short way for a plain reply (issue 16) leaves every other shape to the general checks."""
    replies = [
        b'{"jsonrpc":"2.0","id":1,"result":{"a":1}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"a":2},"error":null}',  # a null error: the result
        b' {"jsonrpc":"2.0","id":3,"result":{"a":3}}\r',  # whitespace around the object
        b'{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no such method"}}',
        b'{"jsonrpc":"2.0","id":5,"result":{"a":5},"error":{"code":-32602,"message":"bad"}}',
        b'{"jsonrpc":"2.0","id":6}',
    ]
    conn = Connection(_RawSyncTransport(replies))
    try:
        assert conn.call("m", {}) == {"a": 1}
        assert conn.call("m", {}) == {"a": 2}
        assert conn.call("m", b"{}") == {"a": 3}
        with pytest.raises(shellport.MethodNotFound, match="no such method"):
            conn.call("m", {})
        with pytest.raises(shellport.InvalidParams, match="bad"):
            conn.call("m", {})
        with pytest.raises(shellport.ProtocolError, match="no result or error"):
            conn.call("m", {})
        assert conn.pending_count() == 0
        with pytest.raises(shellport.ProtocolError):  # that one ended the connection
            conn.call("m", {})
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (b'{"jsonrpc":"2.0","id":1,"result":[1]}', "the result of m is not an object"),
        (b'{"jsonrpc":"2.0","id":1,"result":{}} trailing', "not JSON"),
        (b'["jsonrpc"]', "JSON that is not an object"),
        (b'{"jsonrpc":"2.0","result":{"t":"\xff"}}', "not JSON"),
    ],
)
def test_issue16_a_blocking_call_words_a_bad_reply_as_before(reply: bytes, words: str) -> None:
    conn = Connection(_RawSyncTransport([reply]))
    try:
        with pytest.raises(shellport.ProtocolError, match=words):
            conn.call("m", {})
    finally:
        conn.close()
