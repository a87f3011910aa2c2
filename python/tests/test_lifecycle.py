"""Opening, closing and reuse, argv transports, and fork() on both transports."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import pytest

import shellport
from conftest import CONFIG, alive, binary_path, library_path, wait_until
from shellport import _native
from shellport._client import Connection
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


async def test_issue16_aclose_of_many_sessions_at_once_leaves_no_process(
    transport: str, tmp_path: Path
) -> None:
    """Session.aclose awaits session/close like an acall; every shell still dies."""
    import asyncio

    marker = f"{os.getpid() % 1000 + 7000}.{time.monotonic_ns() % 1000}"
    async with shellport.Runtime({"profile": "persistent"}, transport) as rt:
        sessions = [rt.session(tmp_path) for _ in range(12)]
        for s in sessions:
            r = await s.acall("bash", {"command": f"sleep {marker} & disown; true"})
            assert not r.is_error, r.text
        wait_until(lambda: _sleepers(marker) == 12, "every session's sleep to start")
        await asyncio.gather(*(s.aclose() for s in sessions))
        assert _sleepers(marker) == 0  # close returns once every process is gone
        await sessions[0].aclose()  # a second close does nothing
        with pytest.raises(shellport.SessionNotFound):
            await sessions[0].acall("bash", {"command": "true"})


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


# --- an unclosed Runtime (issue 11) ----------------------------------------------------


def test_issue11_unclosed_runtime_warns_and_is_closed(transport: str, tmp_path: Path) -> None:
    held: list[object] = []  # the only references: emptying it drops the Runtime

    def start() -> Connection:
        rt = shellport.Runtime(CONFIG, transport)
        s = rt.session(tmp_path)
        s.call(
            "bash",
            {"command": f"sleep {marker}", "description": "Sleep", "run_in_background": True},
        )
        held.extend([rt, s])
        return rt._connection()

    marker = f"{3000 + (os.getpid() % 997)}.{len(transport)}"
    conn = start()
    wait_until(lambda: _sleepers(marker) == 1, "the background sleep to start")
    pid = conn.transport.pid if isinstance(conn.transport, shellport.StdioTransport) else None
    with pytest.warns(ResourceWarning, match=f"unclosed <Runtime opened transport='{transport}'>"):
        held.clear()
    gc.collect()
    # Closed, as a file is (on a thread of its own): the connection refuses,
    # the runtime is gone.
    wait_until(lambda: conn.transport.closed, "the unclosed runtime's transport to close")
    assert not conn.usable
    with pytest.raises(shellport.TransportClosed, match="closed and cannot be used again"):
        conn.call("tools/list", {})
    if pid is not None:
        wait_until(lambda: not alive(pid), "the runtime process to exit")
    wait_until(lambda: _sleepers(marker) == 0, "the session's process to die with the runtime")


def _sleepers(marker: str) -> int:
    """Live `sleep MARKER` processes on this machine."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sleep", marker.encode()] and alive(int(entry)):
            count += 1
    return count


def test_issue11_no_warning_for_a_closed_or_never_started_runtime(transport: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        shellport.Runtime(CONFIG, transport)  # never started: holds nothing
        rt = shellport.Runtime(CONFIG, transport)
        rt.tools()
        rt.close()
        del rt
        with shellport.Runtime(CONFIG, transport) as rt2:
            rt2.tools()
        del rt2
        gc.collect()


def test_issue11_resource_warning_under_w_error(transport: str, tmp_path: Path) -> None:
    # What a user running `python -W error::ResourceWarning` (or -X dev) sees;
    # the runtime and what it started are closed even so.
    script = f"""
import gc, shellport
rt = shellport.Runtime({CONFIG!r}, {transport!r})
rt.session({str(tmp_path)!r}).call("bash", {{"command": "sleep 300 &", "description": "x"}})
del rt
gc.collect()
print("survived")
"""
    env = {**os.environ, "SHELLPORT_LIBRARY_PATH": library_path() if transport == "library" else ""}
    out = subprocess.run(
        [sys.executable, "-W", "error::ResourceWarning", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert "survived" in out.stdout
    assert f"ResourceWarning: unclosed <Runtime opened transport='{transport}'>" in out.stderr


def test_issue11_unclosed_runtime_at_exit(transport: str, tmp_path: Path) -> None:
    # A Runtime still open when the program ends: the exit hook closes it,
    # -X dev shows the warning, and the program exits (a finalizer that
    # started a thread during interpreter shutdown hung it).
    script = f"""
import shellport
rt = shellport.Runtime({CONFIG!r}, {transport!r})
print(rt.session({str(tmp_path)!r}).call("_echo", {{"x": 1}}).text)
"""
    out = subprocess.run(
        [sys.executable, "-X", "dev", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '{"x":1}'
    assert f"ResourceWarning: unclosed <Runtime opened transport='{transport}'>" in out.stderr


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
            # Issue 16: acall takes locks the parent's reader thread may
            # have held at fork() (making the loop's descriptor): it must
            # refuse before taking any.
            ("acall", lambda: asyncio.run(session.acall("_echo", {}))),
            ("tools", lambda: rt.tools()),
            ("session", lambda: rt.session("/")),
        ]
        for name, use in uses:
            try:
                use()
                report[name] = "no error"
            except shellport.TransportError as exc:
                report[name] = f"{type(exc).__name__}: {exc}"
        rt.close()  # must neither hang nor touch the parent's runtime
        return report

    report = _in_child(child)
    for name in ("call", "acall", "tools", "session"):
        assert report[name].startswith("TransportClosed:"), report[name]
        # Loud, not a hang: the error is the fork check's own (it names the
        # fork, no transport timeout does), and _in_child's hang guard fails a
        # child that blocks; no wall-clock bound (issue 18).
        assert "fork" in report[name]
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
