"""Concurrent calls, cancellation and notices on both transports."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

import shellport
from conftest import CONFIG, ctrl_c_in_dispatch, in_main_thread, readers_of, wait_until
from shellport import _client

T = TypeVar("T")


def test_concurrent_calls_from_threads(session: shellport.Session) -> None:
    def one(i: int) -> tuple[int, object]:
        return i, json.loads(session.call("_echo", {"i": i}).text)["i"]

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(one, range(200)))
    assert all(i == got for i, got in results)


def test_sessions_are_isolated(rt: shellport.Runtime, tmp_path: Path) -> None:
    dirs = [tmp_path / f"ws{i}" for i in range(8)]
    for d in dirs:
        d.mkdir()
    sessions = [rt.session(d, env={"WHO": str(i)}) for i, d in enumerate(dirs)]

    def check(i: int) -> None:
        for _ in range(10):
            meta = sessions[i].call("_echo", {}).meta
            assert meta["session"] == sessions[i].id
            assert meta["cwd"] == str(dirs[i])
            assert meta["env"] == {"WHO": str(i)}

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(check, range(8)))
    assert len({s.id for s in sessions}) == 8


async def test_acall_runs_concurrently(session: shellport.Session) -> None:
    results = await asyncio.gather(*(session.acall("_echo", {"i": i}) for i in range(50)))
    assert [json.loads(r.text)["i"] for r in results] == list(range(50))


def test_acall_from_two_event_loops(session: shellport.Session) -> None:
    """Issue 16: replies reach each loop in batches of its own, never another loop's."""

    def run(tag: str) -> list[object]:
        async def calls() -> list[object]:
            results = await asyncio.gather(
                *(session.acall("_echo", {"t": tag, "i": i}) for i in range(60))
            )
            return [json.loads(r.text) for r in results]

        return asyncio.run(calls())

    with ThreadPoolExecutor(max_workers=2) as pool:
        a, b = pool.map(run, ["a", "b"])
    assert a == [{"t": "a", "i": i} for i in range(60)]
    assert b == [{"t": "b", "i": i} for i in range(60)]


async def test_acall_cancelled_in_a_batch_leaves_the_others(
    rt: shellport.Runtime, session: shellport.Session
) -> None:
    """Issue 16: a cancelled acall whose reply comes with others' does not stop theirs."""
    conn = rt._connection()
    quick = [asyncio.ensure_future(session.acall("_echo", {"i": i})) for i in range(30)]
    slow = asyncio.ensure_future(session.acall("_sleep", {"ms": 120_000}))
    more = [asyncio.ensure_future(session.acall("_echo", {"i": i})) for i in range(30, 60)]
    while conn.pending_count() < 1:
        await asyncio.sleep(0.01)
    slow.cancel()
    results = await asyncio.gather(*quick, *more)
    assert [json.loads(r.text)["i"] for r in results] == list(range(60))
    with pytest.raises(asyncio.CancelledError):
        await slow
    for _ in range(1500):  # the runtime answers the cancelled call with -32800
        if conn.pending_count() == 0:
            break
        await asyncio.sleep(0.01)
    assert conn.pending_count() == 0


async def test_cancelling_acall_cancels_the_call(
    rt: shellport.Runtime, session: shellport.Session
) -> None:
    conn = rt._connection()
    task = asyncio.ensure_future(session.acall("_sleep", {"ms": 120_000}))
    while conn.pending_count() == 0:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The runtime answers the cancelled request (with -32800) instead of
    # sleeping for two minutes; until then the id stays pending.
    for _ in range(1500):
        if conn.pending_count() == 0:
            break
        await asyncio.sleep(0.01)
    assert conn.pending_count() == 0, "the runtime never answered the cancelled call"
    assert (await session.acall("_echo", {})).text == "{}"


@pytest.mark.skipif(not in_main_thread(), reason="signals reach only the main thread")
def test_ctrl_c_cancels_a_blocking_call(rt: shellport.Runtime, session: shellport.Session) -> None:
    conn = rt._connection()
    main = threading.get_ident()

    def interrupt() -> None:
        wait_until(lambda: conn.pending_count() == 1, "the call to start")
        signal.pthread_kill(main, signal.SIGINT)

    helper = threading.Thread(target=interrupt)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            session.call("_sleep", {"ms": 120_000})
    finally:
        helper.join()
    wait_until(lambda: conn.pending_count() == 0, "the runtime to answer the cancelled call")
    assert session.call("_echo", {}).text == "{}"


def test_notices_reach_their_session(rt: shellport.Runtime, tmp_path: Path) -> None:
    a, b = rt.session(tmp_path), rt.session(tmp_path)
    assert a.notices() == []
    assert a.call("_notify", {"text": "first"}).text == "queued"
    a.call("_notify", {"text": "second"})
    b.call("_notify", {"text": "for b"})
    assert a.notices() == ["first", "second"]
    assert a.notices() == []
    assert b.notices() == ["for b"]


async def test_notices_after_acall(session: shellport.Session) -> None:
    await session.acall("_notify", {"text": "async"})
    assert session.notices() == ["async"]


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """asyncio.run without replacing this thread's default loop.

    asyncio.run drops the loop the policy holds for the main thread; under
    Python 3.9 pytest-asyncio leaves an unclosed one there, whose warning
    would then surface in whatever test collects it next.
    """
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


async def test_issue16_acall_replies_are_read_on_the_loop(
    rt: shellport.Runtime, session: shellport.Session
) -> None:
    """Issue 16: an acall's loop reads the replies itself (no reader thread hand-off)."""
    conn = rt._connection()
    with readers_of(conn.transport) as readers:
        for _ in range(3):
            results = await asyncio.gather(*(session.acall("_echo", {"i": i}) for i in range(40)))
            assert [json.loads(r.text)["i"] for r in results] == list(range(40))
    assert readers.get(threading.get_ident(), 0) > 0, readers


def test_issue16_a_loop_closed_with_acalls_pending(transport: str, tmp_path: Path) -> None:
    """Issue 16: a loop closed with acalls still waiting leaves the runtime usable, no fd behind."""
    with shellport.Runtime(CONFIG, transport) as warm:  # the library's own lasting descriptors
        _run(warm.session(tmp_path).acall("_echo", {}))
    before = _open_fds()
    rt = shellport.Runtime(CONFIG, transport)
    session = rt.session(tmp_path)
    loop = asyncio.new_event_loop()
    task = loop.create_task(session.acall("_sleep", {"ms": 120_000}))
    conn = rt._connection()
    loop.run_until_complete(asyncio.sleep(0))
    while conn.pending_count() == 0:
        loop.run_until_complete(asyncio.sleep(0.01))
    loop.close()  # the task never finishes; its loop is gone
    del task, loop
    assert json.loads(_run(session.acall("_echo", {"n": 1})).text) == {"n": 1}
    assert json.loads(session.call("_echo", {"n": 2}).text) == {"n": 2}
    rt.close()  # closes the closed loop's descriptor too: no collection needed
    wait_until(lambda: _open_fds() <= before, f"descriptors to close: {_open_fds() - before}")


def test_issue16_closing_the_runtime_fails_a_waiting_acall(
    rt: shellport.Runtime, session: shellport.Session
) -> None:
    """Issue 16: close() from another thread ends an acall that waits on its loop."""
    conn = rt._connection()

    async def waiting() -> None:
        await session.acall("_sleep", {"ms": 120_000})

    def close_soon() -> None:
        wait_until(lambda: conn.pending_count() == 1, "the call to start")
        rt.close()

    closer = threading.Thread(target=close_soon)
    closer.start()
    try:
        # close() cancels calls in flight first: Cancelled, or
        # TransportClosed if the runtime went before it answered.
        with pytest.raises((shellport.Cancelled, shellport.TransportClosed)):
            _run(asyncio.wait_for(waiting(), 120))  # a hang guard
    finally:
        closer.join()
    with pytest.raises(shellport.TransportClosed):
        _run(waiting())


def test_issue16_a_loop_that_cannot_watch_gets_replies_from_the_reader(
    session: shellport.Session,
) -> None:
    """Issue 16: a loop without add_reader (Windows' proactor) is served by the reader thread."""

    class NoReaders(asyncio.SelectorEventLoop):
        def add_reader(self, *args: object, **kwargs: object) -> None:
            raise NotImplementedError

    async def calls() -> list[object]:
        results = await asyncio.gather(*(session.acall("_echo", {"i": i}) for i in range(30)))
        return [json.loads(r.text)["i"] for r in results]

    loop = NoReaders()
    try:
        assert loop.run_until_complete(calls()) == list(range(30))
        assert loop.run_until_complete(calls()) == list(range(30))
    finally:
        loop.close()


class _NoReaders(asyncio.SelectorEventLoop):
    """A loop that cannot watch a descriptor (as Windows' proactor loop cannot)."""

    def add_reader(self, *args: object, **kwargs: object) -> None:
        raise NotImplementedError


def _echoes(session: shellport.Session, n: int) -> Coroutine[Any, Any, list[object]]:
    async def calls() -> list[object]:
        results = await asyncio.gather(*(session.acall("_echo", {"i": i}) for i in range(n)))
        return [json.loads(r.text)["i"] for r in results]

    return calls()


def _loop_with_a_call_waiting(
    conn: Any, session: shellport.Session
) -> tuple[asyncio.AbstractEventLoop, asyncio.Task[shellport.ToolResult]]:
    """A loop that watched the reply descriptor and stopped with an acall still waiting."""
    loop = asyncio.new_event_loop()
    before = conn.pending_count()
    task = loop.create_task(session.acall("_sleep", {"ms": 120_000}))
    while conn.pending_count() == before:
        loop.run_until_complete(asyncio.sleep(0.01))
    # Not a bound on anything: the reader thread may still be in a wait it
    # began before this acall (at most one RECEIVE_SLICE). The old code
    # parked it only after that wait, and a reply arriving during it was
    # read, which hid the fault.
    time.sleep(_client.RECEIVE_SLICE * 1.5)
    return loop, task


@pytest.mark.parametrize("how", ["stopped", "closed"])
def test_issue16_a_loop_that_stops_reading_hands_reading_back(
    rt: shellport.Runtime, session: shellport.Session, how: str
) -> None:
    """Issue 16: a loop stopped or closed with acalls waiting no longer keeps the reader parked.

    Another loop that cannot watch the descriptor depends on the reader
    thread for its replies; it used to wait for ever while the first loop's
    acall was pending.
    """
    conn = rt._connection()
    loop, task = _loop_with_a_call_waiting(conn, session)
    if how == "closed":
        loop.close()
    other = _NoReaders()
    try:
        got = other.run_until_complete(asyncio.wait_for(_echoes(session, 20), 120))  # hang guard
        assert got == list(range(20))
    finally:
        other.close()
    if how == "stopped":
        # The stopped loop runs again and still gets what is its own.
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            loop.run_until_complete(task)
        assert json.loads(loop.run_until_complete(session.acall("_echo", {"n": 1})).text) == {
            "n": 1
        }
        loop.close()


def test_issue16_a_closed_loop_does_not_hide_the_runtimes_death(
    rt: shellport.Runtime, session: shellport.Session, transport: str
) -> None:
    """Issue 16: with a closed loop's acall pending, the runtime's death is noticed at once."""
    if transport != "process":
        pytest.skip("only the process transport has a runtime that can die on its own")
    conn = rt._connection()
    loop, _task = _loop_with_a_call_waiting(conn, session)
    loop.close()
    # A blocking call: the reader thread reads its reply, then goes back
    # to waiting with the closed loop's acall still pending.
    assert session.call("_echo", {}).text == "{}"
    os.kill(conn.transport.pid, signal.SIGKILL)  # type: ignore[attr-defined]
    wait_until(lambda: not conn.usable, "the connection to notice the runtime's death")
    with pytest.raises(shellport.ProcessExited):
        session.call("_echo", {})


def test_issue16_finished_loops_leave_nothing_behind(
    rt: shellport.Runtime, session: shellport.Session
) -> None:
    """Issue 16: a loop that awaited acalls and closed leaves no descriptor or reader behind.

    asyncio.run per call makes a loop each time; each used to keep its
    reader, the loop and a duplicate of the reply descriptor for the
    runtime's whole life.
    """
    conn = rt._connection()
    _run(session.acall("_echo", {}))
    before = _open_fds()
    # A loop per call, as asyncio.run makes, through _run: asyncio.run
    # would also drop the loop pytest-asyncio leaves unclosed under Python
    # 3.9, whose warnings, when the collector gets to it, are not this
    # test's.
    for i in range(20):
        assert json.loads(_run(session.acall("_echo", {"i": i})).text) == {"i": i}

    # No collection needed (it would also finalise what earlier tests left).
    def released() -> bool:
        return _open_fds() <= before and len(conn._loops) == 0

    wait_until(released, f"descriptors to close: {_open_fds() - before}")


def test_issue16_a_closed_loop_lets_go_of_its_descriptor(
    rt: shellport.Runtime, session: shellport.Session
) -> None:
    """Issue 16: a loop closed after its acalls releases its descriptor while still referenced.

    A reference cycle can keep a closed loop from being collected until the
    collector runs; its reader and its duplicate of the reply descriptor
    must not wait for that.
    """
    conn = rt._connection()
    _run(session.acall("_echo", {}))
    before = _open_fds()
    loop = asyncio.new_event_loop()
    assert json.loads(loop.run_until_complete(session.acall("_echo", {"n": 1})).text) == {"n": 1}
    assert loop in conn._loops
    loop.close()  # still referenced here, as by a cycle

    def released() -> bool:
        return _open_fds() <= before and loop not in conn._loops

    wait_until(released, f"descriptors to close: {_open_fds() - before}")
    # The connection goes on serving calls, and a new loop its acalls.
    assert json.loads(session.call("_echo", {"n": 2}).text) == {"n": 2}
    assert json.loads(_run(session.acall("_echo", {"n": 3})).text) == {"n": 3}


# The collection below also finalises what earlier tests left behind (under
# Python 3.9, a loop pytest-asyncio leaves unclosed), whose warnings are not
# this test's.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_issue16_a_collected_acall_takes_no_lock(
    rt: shellport.Runtime, session: shellport.Session
) -> None:
    """Issue 16: an acall of a closed loop, finalised by the collector, takes no lock.

    Once its reply is in, nothing keeps a closed loop's acall, and the
    collector finalises it in whatever thread allocates at the time, maybe
    one that holds the connection's lock; a finaliser that takes it
    deadlocks there.
    """
    import gc

    conn = rt._connection()
    loop = asyncio.new_event_loop()
    task = loop.create_task(session.acall("_sleep", {"ms": 50}))
    loop.run_until_complete(asyncio.sleep(0))  # the acall sends its request, then waits
    loop.close()
    del task, loop
    wait_until(lambda: conn.pending_count() == 0, "the closed loop's reply to be read")

    def collect_under_the_lock() -> None:
        with conn._lock:
            gc.collect()

    collector = threading.Thread(target=collect_under_the_lock, daemon=True)
    collector.start()
    collector.join(60)  # a hang guard
    assert not collector.is_alive(), "the collected acall waited for the connection's lock"
    assert json.loads(session.call("_echo", {"n": 3}).text) == {"n": 3}


def test_issue16_an_exception_mid_batch_loses_no_reply(session: shellport.Session) -> None:
    """Issue 16: a KeyboardInterrupt while a loop dispatches a batch loses none of it.

    A logging handler on the wire logger runs inside the dispatch; raising
    KeyboardInterrupt from it stands for a Ctrl-C landing there. The replies
    of the batch that were read but not yet delivered must still reach
    their calls.
    """
    loop = asyncio.new_event_loop()
    try:
        with ctrl_c_in_dispatch('\\"i\\":7}') as raised:
            tasks = [loop.create_task(session.acall("_echo", {"i": i})) for i in range(40)]
            with pytest.raises(KeyboardInterrupt):
                loop.run_until_complete(asyncio.gather(*tasks))
            assert raised
            gathered = asyncio.wait_for(asyncio.gather(*tasks), 120)  # a hang guard
            results = loop.run_until_complete(gathered)
            assert [json.loads(r.text)["i"] for r in results] == list(range(40))
    finally:
        loop.close()
