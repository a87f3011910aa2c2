"""Opening, closing and reuse, argv transports, and fork() on both transports."""

from __future__ import annotations

import json
import os
import select
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

import shellport
from conftest import CONFIG, binary_path, library_path, wait_until
from shellport import _native
from shellport._transports import cdll


def test_runtime_opens_lazily_and_closes_for_good(transport: str, tmp_path: Path) -> None:
    rt = shellport.Runtime(CONFIG, transport)
    assert "unopened" in repr(rt)
    s = rt.session(tmp_path)
    assert "opened" in repr(rt)
    rt.close()
    rt.close()  # twice is fine
    assert "closed" in repr(rt)
    with pytest.raises(shellport.TransportClosed, match="closed and cannot be used again"):
        rt.session(tmp_path)
    with pytest.raises(shellport.TransportClosed):
        s.call("_echo", {})
    with pytest.raises(shellport.TransportClosed):
        rt.tools()
    s.close()  # closing a session of a closed runtime is a no-op


def test_close_before_open(transport: str, tmp_path: Path) -> None:
    rt = shellport.Runtime(CONFIG, transport)
    rt.close()
    with pytest.raises(shellport.TransportClosed, match="create a new Runtime"):
        rt.session(tmp_path)


def test_context_manager(transport: str, tmp_path: Path) -> None:
    with shellport.Runtime(CONFIG, transport) as rt:
        assert rt.session(tmp_path).call("_echo", {}).text == "{}"
    with pytest.raises(shellport.TransportClosed):
        rt.tools()


async def test_async_context_manager(transport: str, tmp_path: Path) -> None:
    async with shellport.Runtime(CONFIG, transport) as rt:
        s = rt.session(tmp_path)
        assert (await s.acall("_echo", {"x": 1})).text == '{"x":1}'
    with pytest.raises(shellport.TransportClosed):
        await s.acall("_echo", {})


def test_close_with_a_call_in_flight(transport: str, tmp_path: Path) -> None:
    rt = shellport.Runtime(CONFIG, transport)
    s = rt.session(tmp_path)
    conn = rt._connection()
    outcome: list[BaseException] = []

    def sleeper() -> None:
        try:
            s.call("_sleep", {"ms": 120_000})
        except BaseException as exc:
            outcome.append(exc)

    t = threading.Thread(target=sleeper)
    t.start()
    wait_until(lambda: conn.pending_count() == 1, "the call to start")
    rt.close()
    t.join(15)
    assert not t.is_alive(), "a call in flight outlived close()"
    assert len(outcome) == 1
    assert isinstance(outcome[0], shellport.ShellportError)


def test_argv_transport(tmp_path: Path) -> None:
    with shellport.Runtime(CONFIG, [binary_path(), "serve"]) as rt:
        assert rt.transport_name == "process"
        assert rt.version == shellport.__version__
        assert rt.session(tmp_path).call("_echo", {"a": 1}).text == '{"a":1}'


# --- fork ------------------------------------------------------------------------------


def _in_child(body: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run body() in a forked child and return the dict it reports through a pipe.

    The child never returns into pytest: it always ends with os._exit. A
    child that hangs is killed and the test fails instead of hanging.
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(r)
        try:
            sent = body()
        except BaseException as exc:
            sent = {"crash": f"{type(exc).__name__}: {exc}"}
        try:
            os.write(w, json.dumps(sent).encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([r], [], [], 30)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail("the forked child hung")
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
    os.waitpid(pid, 0)
    report: dict[str, Any] = json.loads(b"".join(chunks) or b"{}")
    assert "crash" not in report, report["crash"]
    return report


def test_fork_child_gets_a_clear_error(rt: shellport.Runtime, session: shellport.Session) -> None:
    session.call("_echo", {})  # opened and used before the fork

    def child() -> dict[str, Any]:
        report: dict[str, Any] = {}
        uses: list[tuple[str, Callable[[], object]]] = [
            ("call", lambda: session.call("_echo", {})),
            ("tools", lambda: rt.tools()),
            ("session", lambda: rt.session("/")),
        ]
        for name, use in uses:
            start = time.monotonic()
            try:
                use()
                report[name] = "no error"
            except shellport.TransportError as exc:
                report[name] = f"{type(exc).__name__}: {exc}"
            report[name + "_seconds"] = time.monotonic() - start
        rt.close()  # must neither hang nor touch the parent's runtime
        return report

    report = _in_child(child)
    for name in ("call", "tools", "session"):
        assert report[name].startswith("TransportClosed:"), report[name]
        assert "fork" in report[name]
        assert report[name + "_seconds"] < 2.0  # the bar: loud, not a hang
    # The parent's runtime is untouched by the child.
    assert session.call("_echo", {"after": "fork"}).text == '{"after":"fork"}'


def test_new_runtime_in_a_fork_child_works(rt: shellport.Runtime, tmp_path: Path) -> None:
    rt.session(tmp_path).call("_echo", {})

    def child() -> dict[str, Any]:
        with shellport.Runtime(CONFIG) as fresh:
            text = fresh.session(str(tmp_path)).call("_echo", {"in": "child"}).text
            return {"transport": fresh.transport_name, "text": text}

    report = _in_child(child)
    assert report["text"] == '{"in":"child"}'
    if cdll.inherited_reason() is None and cdll._library is not None:
        # The library is loaded here, so the child cannot use it.
        assert report["transport"] == "process"


def test_library_transport_refused_in_a_fork_child() -> None:
    if _native.library_supported() is not None:
        pytest.skip(f"library transport unavailable: {_native.library_supported()}")
    library_path()
    with shellport.Runtime(CONFIG, "library") as rt:
        rt.tools()

    def child() -> dict[str, Any]:
        try:
            shellport.Runtime(CONFIG, "library").tools()
        except shellport.TransportError as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}
        return {"error": None}

    report = _in_child(child)
    assert report["error"] is not None
    assert "fork" in report["error"]
