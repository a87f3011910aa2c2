"""The acall path, narrowly: 256 sessions calling at once, and one session alone.

`make bench` measures the 256-session throughput against the floor among
many other cases; this probe runs only that case (or one session's round
trip) in a fresh process, so two builds can be alternated back to back on
a shared machine (issue 16). Besides the rate it reports CPU per call: the
host's (this process, plus the runtime process over the process
transport; bash's own is the same for every build and left out) and the
event loop thread's (time.thread_time), which bounds the rate once that
thread is busy all the time.

    .venv/bin/python bench/acall_probe.py scale library      # 256 x 10 x 2 acall `true`
    .venv/bin/python bench/acall_probe.py scale floor        # the same on raw PTYs
    .venv/bin/python bench/acall_probe.py solo-acall process 1500
    .venv/bin/python bench/acall_probe.py solo-call library 3000 editor  # the no-op call

To compare a build with another, run the other's package with
PYTHONPATH=OTHER/python/src (its native files built there with make native).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

CWD = tempfile.gettempdir()


def _cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _host_cpu(runtime_pid: int | None) -> float:
    t = os.times()
    return t.user + t.system + (_cpu_of(runtime_pid) if runtime_pid else 0.0)


def _runtime_pid(transport: str) -> int | None:
    """The runtime process over the process transport (None: it is this one)."""
    if transport != "process":
        return None
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name, rest = stat.split("(", 1)[1].rsplit(")", 1)
        if name == "shellport" and int(rest.split()[1]) == me:
            return int(entry)
    return None


async def scale(transport: str, n: int, calls: int, bursts: int) -> dict[str, Any]:
    import shellport

    rt = shellport.Runtime(config={"profile": "persistent"}, transport=transport)
    rt.tools()
    rpid = _runtime_pid(transport)
    sessions = [rt.session(cwd=CWD) for _ in range(n)]

    async def one(s: shellport.Session) -> None:
        r = await s.acall("bash", {"command": "true"})
        if r.is_error or r.meta.get("exitCode") != 0:
            raise RuntimeError(f"true failed: {r.text[:200]}")

    async def worker(s: shellport.Session) -> None:
        for _ in range(calls):
            await one(s)

    await asyncio.gather(*(one(s) for s in sessions))  # every shell live from here on
    rates, host, loop = [], [], []
    for _ in range(bursts):
        c0, t0, m0 = _host_cpu(rpid), time.perf_counter(), time.thread_time()
        await asyncio.gather(*(worker(s) for s in sessions))
        total = n * calls
        rates.append(total / (time.perf_counter() - t0))
        host.append((_host_cpu(rpid) - c0) / total * 1e6)
        loop.append((time.thread_time() - m0) / total * 1e6)
    await asyncio.gather(*(s.aclose() for s in sessions))
    rt.close()
    return {
        "rate": statistics.median(rates),
        "host_cpu_us": statistics.median(host),
        "loop_cpu_us": statistics.median(loop),
    }


async def floor_scale(n: int, calls: int, bursts: int) -> dict[str, Any]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from spbench.floor import RawPtyShell, arun

    shells = [RawPtyShell(CWD) for _ in range(n)]

    async def worker(sh: RawPtyShell) -> None:
        for _ in range(calls):
            await arun(sh, "true")

    await asyncio.gather(*(arun(sh, "true") for sh in shells))
    rates, loop = [], []
    for _ in range(bursts):
        t0, m0 = time.perf_counter(), time.thread_time()
        await asyncio.gather(*(worker(sh) for sh in shells))
        rates.append(n * calls / (time.perf_counter() - t0))
        loop.append((time.thread_time() - m0) / (n * calls) * 1e6)
    for sh in shells:
        sh.close()
    return {"rate": statistics.median(rates), "loop_cpu_us": statistics.median(loop)}


def solo(transport: str, calls: int, use_async: bool, tool: str) -> dict[str, Any]:
    import shellport

    rt = shellport.Runtime(config={"profile": "persistent"}, transport=transport)
    s = rt.session(cwd=CWD)
    if tool == "bash":
        name, args = "bash", {"command": "true"}
    else:
        path = os.path.join(tempfile.mkdtemp(), "two")
        with open(path, "w") as f:
            f.write("x\n")
        name, args = "str_replace_editor", {"command": "view", "path": path}
    # As bench/spbench/shells.py calls acall: one run_until_complete per call.
    loop = asyncio.new_event_loop()

    def call() -> Any:
        if use_async:
            return loop.run_until_complete(s.acall(name, args))
        return s.call(name, args)

    for _ in range(50):
        call()
    rpid = _runtime_pid(transport)
    lat = []
    c0, m0 = _host_cpu(rpid), time.thread_time()
    for _ in range(calls):
        t = time.perf_counter()
        r = call()
        lat.append(time.perf_counter() - t)
        if r.is_error:
            raise RuntimeError(f"{name} failed: {r.text[:200]}")
    host, caller = _host_cpu(rpid) - c0, time.thread_time() - m0
    loop.close()
    s.close()
    rt.close()
    return {
        "p50_ms": statistics.median(lat) * 1e3,
        "host_cpu_us": host / calls * 1e6,
        "caller_cpu_us": caller / calls * 1e6,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("case", choices=["scale", "solo-acall", "solo-call"])
    p.add_argument("transport", choices=["library", "process", "floor"])
    p.add_argument("calls", nargs="?", type=int, default=1500, help="solo: calls measured")
    p.add_argument("tool", nargs="?", choices=["bash", "editor"], default="bash")
    p.add_argument("--sessions", type=int, default=256)
    a = p.parse_args()
    if a.case == "scale":
        if a.transport == "floor":
            out = asyncio.run(floor_scale(a.sessions, 10, 2))
        else:
            out = asyncio.run(scale(a.transport, a.sessions, 10, 2))
    elif a.transport == "floor":
        p.error("the floor has only the scale case here")
    else:
        out = solo(a.transport, a.calls, a.case == "solo-acall", a.tool)
    print(json.dumps({"case": a.case, "transport": a.transport, "tool": a.tool, **out}))


if __name__ == "__main__":
    main()
