"""The scale case: many sessions with live persistent shells, all calling at once.

One child process per contender and repetition. It opens N sessions (each
with its shell started by a first call), then runs bursts in which every
session does K `true` round trips back to back, all sessions concurrently
(asyncio acall). It records throughput and latency, the runtime's RSS and
open fds with all shells live, then closes every session and checks the
process table: every process that was a descendant before closing must be
gone afterwards (and none left as a zombie).

The floor does the same with N raw-PTY bashes driven from one event loop.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from . import procs
from .floor import RawPtyShell, arun


async def _burst(runners: list[Any], calls: int) -> dict[str, Any]:
    lat: list[float] = []
    clock = time.perf_counter

    async def worker(run: Any) -> None:
        for _ in range(calls):
            t = clock()
            await run()
            lat.append(clock() - t)

    t0 = clock()
    await asyncio.gather(*(worker(r) for r in runners))
    return {"seconds": clock() - t0, "latencies": lat}


async def run_child(spec: dict[str, Any]) -> dict[str, Any]:
    name, n, calls, bursts, cwd = (
        spec["contender"],
        spec["sessions"],
        spec["calls"],
        spec["bursts"],
        spec["cwd"],
    )
    me = os.getpid()
    rss0 = procs.rss(me)
    clock = time.perf_counter
    bad: list[str] = []
    # What the runtime holds before any session: per-session costs are the
    # growth from here (issue 16).
    runtime_pid = me
    if name != "floor":
        import shellport

        rt = shellport.Runtime(config={"profile": "persistent"}, transport=name.split("-", 1)[1])
        rt.tools()  # starts the runtime
        pids = procs.children_named(me, "shellport")
        runtime_pid = max(pids) if name.endswith("process") and pids else me
    base_rss, base_fds = procs.rss(runtime_pid), procs.fd_count(runtime_pid)
    t = clock()
    if name == "floor":
        shells = [RawPtyShell(cwd) for _ in range(n)]

        def runner(sh: RawPtyShell) -> Any:
            async def run() -> None:
                out = await arun(sh, "true")
                if out != b"":
                    bad.append(repr(out[:80]))

            return run

        runners = [runner(sh) for sh in shells]
    else:
        sessions = [rt.session(cwd=cwd) for _ in range(n)]

        def runner(s: Any) -> Any:
            async def run() -> None:
                r = await s.acall("bash", {"command": "true"})
                if r.is_error or r.meta.get("exitCode") != 0 or r.text not in ("", "[no output]"):
                    bad.append(repr(r.text[:80]))

            return run

        runners = [runner(s) for s in sessions]
        await asyncio.gather(*(r() for r in runners))  # every shell is live from here on
    open_seconds = clock() - t
    results = [await _burst(runners, calls) for _ in range(bursts)]
    # The same live sessions, one call at a time: what holding N shells costs
    # a single caller, without any queueing.
    solo: list[float] = []
    for _ in range(2):
        for run in runners:
            t1 = clock()
            await run()
            solo.append(clock() - t1)
    live = procs.descendants(me)
    # The per-session supervisors (the C spawn helper between the runtime
    # and each bash) are part of what a session costs: their private memory
    # and descriptors count. A spare one waiting for the next shell is the
    # runtime's: it is not counted per session and outlives the sessions'
    # close, but not the runtime's.
    spares = procs.idle_spares(live)
    helpers = procs.children_named(me, "shellport-spawn-helper") - spares
    helper_private = [procs.private_bytes(p) for p in helpers]
    helper_fds = [procs.fd_count(p) for p in helpers]
    rss_now, fds_now = procs.rss(runtime_pid), procs.fd_count(runtime_pid)
    per_session = {
        "runtime_bytes": (rss_now - base_rss) / n if rss_now and base_rss else None,
        "runtime_fds": (fds_now - base_fds) / n if fds_now and base_fds else None,
        "supervisors": len(helpers),
        "supervisor_private_bytes": (sum(v for v in helper_private if v) / n if helpers else 0.0),
        "supervisor_fds": sum(v for v in helper_fds if v) / n if helpers else 0.0,
    }
    facts = {
        "per_session": per_session,
        "runtime_pid_is_host": runtime_pid == me,
        "runtime_rss": procs.rss(runtime_pid),
        "runtime_rss_host_start": rss0,
        "runtime_fds": procs.fd_count(runtime_pid),
        "host_fds": procs.fd_count(me),
        "live_processes": len(live),
    }
    t = clock()
    if name == "floor":
        for sh in shells:
            sh.close()
    else:
        await asyncio.gather(*(s.aclose() for s in sessions))
    close_seconds = clock() - t
    recorded = {p: s for p, s in live.items() if p != runtime_pid and p not in spares}
    left, zombies = _settle(recorded)
    left_end: list[int] = []
    if name != "floor":
        rt.close()
        left_end, zombies_end = _settle({p: s for p, s in live.items() if p != me})
        left_end += zombies_end
    return {
        "left_after_runtime_close": left_end,
        "open_seconds": open_seconds,
        "bursts": results,
        "one_at_a_time": solo,
        "close_seconds": close_seconds,
        "left_after_close": left,
        "zombies_after_close": zombies,
        "bad_results": bad[:5],
        "bad_count": len(bad),
        **facts,
    }


def _settle(recorded: dict[int, str]) -> Any:
    """Survivors after close, allowing a moment for kills already sent to land."""
    deadline = time.monotonic() + 2.0
    while True:
        left, zombies = procs.survivors(recorded)
        if (not left and not zombies) or time.monotonic() > deadline:
            return left, zombies
        time.sleep(0.05)
