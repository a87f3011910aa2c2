"""Concurrent calls, cancellation and notices on both transports."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import shellport
from conftest import in_main_thread, wait_until


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
