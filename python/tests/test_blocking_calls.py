"""Blocking calls that wait for their own replies (issue 16), on both transports.

Over the process transport a blocking call reads the runtime's messages
itself while no other blocking call does (it leads) and dispatches all of
them in order; the others sleep until their reply is dispatched or the lead
passes to them. Over the library transport each waits in the library. These
tests hold both to what the reader thread guaranteed: ordering, many
callers, acalls alongside, Ctrl-C, timeouts, the runtime's death, close()
from another thread, fork, and a child's stderr kept drained.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import shellport
from conftest import (
    CONFIG,
    binary_path,
    ctrl_c_in_dispatch,
    in_main_thread,
    readers_of,
    wait_until,
)
from shellport import _client

HANG_GUARD = 120  # seconds: only a hang takes this long


@pytest.fixture
def no_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a waiting call's slices an hour long.

    A call looks at its reply, signals and timeouts at the end of each
    slice anyway; with hour-long slices, a reply that reaches its waiter
    without waking it (a missed hand-off, a lead nobody took) hangs the
    test instead of costing a quarter of a second.
    """
    monkeypatch.setattr(_client, "WAIT_SLICE", 3600.0)


def _sleeping_ids(conn: _client.Connection) -> list[int]:
    with conn._lock:
        return [k for k, p in conn._pending.items() if p.method == "tools/call"]


def test_issue16_a_blocking_call_reads_its_own_reply(rt: shellport.Runtime, transport: str) -> None:
    """Over the process transport the calling thread reads the replies, not the reader thread."""
    if transport != "process":
        pytest.skip("the library's blocking call waits in the library (transport sync_calls)")
    session = rt.session("/")
    conn = rt._connection()
    with readers_of(conn.transport) as readers:
        for n in range(50):
            assert json.loads(session.call("_echo", {"n": n}).text) == {"n": n}
    assert readers.get(threading.get_ident(), 0) > 0, readers


def test_issue16_a_reply_another_reader_takes_wakes_the_caller_that_reads(
    rt: shellport.Runtime, transport: str, no_slices: None
) -> None:
    """A leading call stalled before its wait: the reader thread takes its reply and wakes it.

    The calling thread stalls just before it waits for the descriptor, as
    if descheduled; while it does, the reader thread must take what came
    (nobody else reads it), and the reply it dispatches must end the
    caller's wait at once, though nothing is left for it to read.
    """
    if transport != "process":
        pytest.skip("the library's blocking call waits in the library (transport sync_calls)")
    session = rt.session("/")
    conn = rt._connection()
    stalled, go_on = threading.Event(), threading.Event()
    original = conn.transport.wait_ready

    def stalling(fd: int, timeout: float, wake: int = -1) -> bool:
        if wake >= 0 and not stalled.is_set():  # the leading caller's wait
            stalled.set()
            go_on.wait(HANG_GUARD)
        return original(fd, timeout, wake)

    conn.transport.wait_ready = stalling  # type: ignore[method-assign]
    outcome: list[object] = []

    def call() -> None:
        outcome.append(session.call("_echo", {"n": 1}).text)

    caller = threading.Thread(target=call)
    try:
        caller.start()
        assert stalled.wait(HANG_GUARD)
        wait_until(lambda: conn.pending_count() == 0, "the reader thread to take the reply")
        go_on.set()
        caller.join(HANG_GUARD)
    finally:
        go_on.set()
        del conn.transport.wait_ready
    assert not caller.is_alive(), "the caller slept on after its reply was dispatched"
    assert outcome == ['{"n":1}']


@pytest.mark.skipif(not in_main_thread(), reason="the test raises on the main thread")
def test_issue16_ctrl_c_while_a_leading_call_dispatches_loses_no_reply(
    rt: shellport.Runtime, transport: str, no_slices: None
) -> None:
    """A KeyboardInterrupt while the main thread dispatches others' replies loses none of them.

    A logging handler on the wire logger runs inside the dispatch; raising
    KeyboardInterrupt from it stands for a Ctrl-C landing there. The main
    thread's own call is cancelled; every other thread still gets its reply.
    """
    if transport != "process":
        pytest.skip("the library's blocking call waits in the library (transport sync_calls)")
    session = rt.session("/")
    conn = rt._connection()
    results: dict[int, object] = {}

    def echo(i: int) -> None:
        results[i] = json.loads(session.call("_echo", {"i": i}).text)["i"]

    echoes = [threading.Thread(target=echo, args=(i,)) for i in range(8)]

    def start_echoes() -> None:
        wait_until(lambda: conn._leader is not None, "the main thread to lead")
        for t in echoes:
            t.start()

    starter = threading.Thread(target=start_echoes)
    with ctrl_c_in_dispatch('\\"i\\":') as raised:
        starter.start()
        with pytest.raises(KeyboardInterrupt):
            session.call("_sleep", {"ms": 120_000})
        starter.join()
        for t in echoes:
            t.join(HANG_GUARD)
            assert not t.is_alive(), "a reply read before the Ctrl-C never reached its call"
    assert raised
    assert results == {i: i for i in range(8)}
    wait_until(lambda: conn.pending_count() == 0, "the runtime to answer the cancelled call")


def test_issue16_blocking_calls_from_threads_with_acalls_and_notices(
    rt: shellport.Runtime, tmp_path: Path, no_slices: None
) -> None:
    """Many blocking callers and a loop at once: every reply, in order, with no missed wake-up."""
    blocking = [rt.session(tmp_path) for _ in range(6)]
    looping = [rt.session(tmp_path) for _ in range(3)]

    def block(i: int) -> None:
        s = blocking[i]
        for n in range(40):
            s.call("_notify", {"text": f"b{i}-{n}"})
            assert s.notices() == [f"b{i}-{n}"]  # the notice came before the reply
            assert json.loads(s.call("_echo", {"n": n}).text) == {"n": n}

    async def loop_calls() -> None:
        async def one(s: shellport.Session, i: int) -> None:
            for n in range(40):
                await s.acall("_notify", {"text": f"a{i}-{n}"})
                assert s.notices() == [f"a{i}-{n}"]
                assert json.loads((await s.acall("_echo", {"n": n})).text) == {"n": n}

        await asyncio.gather(*(one(s, i) for i, s in enumerate(looping)))

    with ThreadPoolExecutor(max_workers=7) as pool:
        futures = [pool.submit(block, i) for i in range(6)]
        futures.append(pool.submit(asyncio.run, loop_calls()))
        for f in futures:
            f.result(timeout=HANG_GUARD)


def test_issue16_a_call_with_a_timeout(rt: shellport.Runtime) -> None:
    """A blocking call's timeout cancels its request; the connection goes on."""
    session = rt.session("/")
    conn = rt._connection()
    params = {"session": session.id, "name": "_sleep", "arguments": {"ms": 120_000}}
    with pytest.raises(shellport.TransportError, match="no reply to request"):
        conn.call("tools/call", params, timeout=0.3)
    wait_until(lambda: conn.pending_count() == 0, "the runtime to answer the cancelled call")
    assert session.call("_echo", {"after": "timeout"}).text == '{"after":"timeout"}'


def _call_in_thread(session: shellport.Session, outcome: list[object]) -> threading.Thread:
    def run() -> None:
        try:
            outcome.append(session.call("_sleep", {"ms": 120_000}))
        except BaseException as exc:
            outcome.append(exc)

    t = threading.Thread(target=run)
    t.start()
    return t


@pytest.mark.skipif(not in_main_thread(), reason="signals reach only the main thread")
@pytest.mark.parametrize("main_first", [True, False], ids=["main-leads", "main-follows"])
def test_issue16_ctrl_c_with_another_blocking_call_waiting(
    rt: shellport.Runtime, transport: str, main_first: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C cancels the main thread's call, leading or not; the other still gets its reply."""
    if transport == "process":
        # No slice ends to rescue a missed wake-up. (The library's wait
        # looks at signals only between slices: it keeps them.)
        monkeypatch.setattr(_client, "WAIT_SLICE", 3600.0)
    session = rt.session("/")
    conn = rt._connection()
    main = threading.get_ident()
    outcome: list[object] = []
    other: threading.Thread | None = None

    def interrupt() -> None:
        nonlocal other
        if main_first:
            wait_until(lambda: conn.pending_count() == 1, "the main thread's call to start")
            other = _call_in_thread(session, outcome)
        wait_until(lambda: conn.pending_count() == 2, "both calls to start")
        signal.pthread_kill(main, signal.SIGINT)

    if not main_first:
        other = _call_in_thread(session, outcome)
        wait_until(lambda: conn.pending_count() == 1, "the other call to start")
    helper = threading.Thread(target=interrupt)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            session.call("_sleep", {"ms": 120_000})
    finally:
        helper.join()
    wait_until(lambda: conn.pending_count() == 1, "the runtime to answer the cancelled call")
    assert session.call("_echo", {"n": 1}).text == '{"n":1}'
    # The other call is still waiting; cancelling it brings its answer,
    # which must reach it (no slice ends to rescue a missed wake-up).
    for request_id in _sleeping_ids(conn):
        conn.cancel(request_id)
    assert other is not None
    other.join(HANG_GUARD)
    assert not other.is_alive(), "the other call never got its reply"
    assert len(outcome) == 1
    assert isinstance(outcome[0], shellport.ShellportError), outcome


def test_issue16_close_from_another_thread_with_blocking_calls_waiting(
    transport: str, tmp_path: Path, no_slices: None
) -> None:
    """close() ends every blocking call waiting (the one that reads and those that sleep)."""
    rt = shellport.Runtime(CONFIG, transport)
    session = rt.session(tmp_path)
    conn = rt._connection()
    outcome: list[object] = []
    threads = [_call_in_thread(session, outcome) for _ in range(4)]
    wait_until(lambda: conn.pending_count() == 4, "the calls to start")
    rt.close()
    for t in threads:
        t.join(HANG_GUARD)
        assert not t.is_alive(), "a blocking call outlived close()"
    assert len(outcome) == 4
    assert all(isinstance(o, shellport.ShellportError) for o in outcome), outcome


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_issue16_runtime_killed_with_blocking_calls_waiting(
    tmp_path: Path, no_slices: None
) -> None:
    """The runtime's death mid-call reaches every blocking caller; no descriptor is left."""
    before = _open_fds()
    rt = shellport.Runtime(CONFIG, "process")
    session = rt.session(tmp_path)
    conn = rt._connection()
    transport = conn.transport
    assert isinstance(transport, shellport.StdioTransport)
    outcome: list[object] = []
    threads = [_call_in_thread(session, outcome) for _ in range(4)]
    wait_until(lambda: conn.pending_count() == 4, "the calls to start")
    os.kill(transport.pid, signal.SIGKILL)
    for t in threads:
        t.join(HANG_GUARD)
        assert not t.is_alive(), "a blocking call outlived the runtime"
    assert len(outcome) == 4
    for o in outcome:
        assert isinstance(o, shellport.ProcessExited), outcome
        assert o.returncode == -signal.SIGKILL
    with pytest.raises(shellport.ProcessExited):
        session.call("_echo", {})
    rt.close()
    wait_until(lambda: _open_fds() <= before, f"descriptors to close: {_open_fds() - before}")


# Relays the runtime's replies and writes 4 KiB to stderr with each: a host
# that stopped draining the child's stderr would stall the relay (and every
# reply) once the pipe filled.
_NOISY_RELAY = """
import sys
out, err = sys.stdout.buffer, sys.stderr.buffer
for line in sys.stdin.buffer:
    err.write(b"n" * 4095 + b"\\n"); err.flush()
    out.write(line); out.flush()
"""


def test_issue16_blocking_calls_keep_the_childs_stderr_drained(tmp_path: Path) -> None:
    """Blocking calls that read their own replies also drain the child's stderr."""
    relay = tmp_path / "relay.py"
    relay.write_text(_NOISY_RELAY)
    argv = ["/bin/sh", "-c", '"$0" serve | "$1" "$2"', binary_path(), sys.executable, str(relay)]
    with shellport.Runtime(CONFIG, argv) as rt:
        session = rt.session(tmp_path)
        for n in range(200):  # 800 KiB of stderr, many times a pipe's capacity
            assert session.call("_echo", {"n": n}).text == f'{{"n":{n}}}'
        transport = rt._connection().transport
        assert isinstance(transport, shellport.StdioTransport)
        assert "n" * 4095 in transport.stderr_tail()


def _in_child_report(body: Any) -> dict[str, Any]:
    from test_lifecycle import _in_child

    report: dict[str, Any] = _in_child(body)
    return report


def test_issue16_fork_while_a_blocking_call_waits(rt: shellport.Runtime, no_slices: None) -> None:
    """A child forked while a blocking call reads gets the fork error at once, no lock taken."""
    session = rt.session("/")
    conn = rt._connection()
    outcome: list[object] = []
    waiting = _call_in_thread(session, outcome)
    wait_until(lambda: conn.pending_count() == 1, "the call to start")

    def child() -> dict[str, Any]:
        try:
            session.call("_echo", {})
            return {"call": "no error"}
        except shellport.TransportError as exc:
            return {"call": f"{type(exc).__name__}: {exc}"}

    report = _in_child_report(child)
    assert report["call"].startswith("TransportClosed:"), report
    assert "fork" in report["call"], report
    assert session.call("_echo", {"after": "fork"}).text == '{"after":"fork"}'
    for request_id in _sleeping_ids(conn):
        conn.cancel(request_id)
    waiting.join(HANG_GUARD)
    assert not waiting.is_alive()
    assert len(outcome) == 1
    assert isinstance(outcome[0], shellport.ShellportError), outcome
