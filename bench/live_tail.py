"""One caller over N live persistent sessions: its tail next to the floor's, under one load.

The live-sessions case of `make bench` measures the floor and each transport
in separate children, one after the other, so on a shared machine their
tails see different loads. This probe holds N raw-PTY bashes (the floor) and
N shellport sessions in one process and alternates their calls (floor,
shellport, shellport, floor, ...), so whatever else the machine does hits
both alike; the ratio of the tails is what holding N sessions costs
shellport itself (issue 16).

For the slowest 1% of each side's calls it also reports what they had in
common: the process's CPU time and involuntary context switches during the
call (how often it was preempted), minor page faults, and whether a Python
garbage collection ran during it (gc.callbacks).

    .venv/bin/python bench/live_tail.py library 1024 --rounds 2
    .venv/bin/python bench/live_tail.py process 256 --mode call

N sessions need 2N pseudo-terminals (kernel.pty.max; 4,096 by default, so
N ≤ about 1,500 on a machine where nothing else holds terminals).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from spbench.floor import RawPtyShell, arun

_clock = time.perf_counter
_collections: list[tuple[float, float]] = []
_started: list[float] = [0.0]


def _on_gc(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[0] = _clock()
    else:
        _collections.append((_started[0], _clock()))


def _quantile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))]


def _summary(calls: list[tuple[float, float, float, int, int]]) -> dict[str, Any]:
    """calls: (start, seconds, cpu seconds, involuntary switches, minor faults)."""
    lat = [c[1] for c in calls]
    cut = _quantile(lat, 0.99)
    slow = [c for c in calls if c[1] >= cut]
    fast = [c for c in calls if c[1] < cut]

    def mean(xs: list[Any], k: int) -> float:
        return sum(x[k] for x in xs) / max(1, len(xs))

    def in_gc(c: tuple[float, ...]) -> bool:
        return any(a < c[0] + c[1] and b > c[0] for a, b in _collections)

    return {
        "p50_ms": round(_quantile(lat, 0.5) * 1e3, 3),
        "p90_ms": round(_quantile(lat, 0.9) * 1e3, 3),
        "p99_ms": round(cut * 1e3, 3),
        "slowest_1pct": {
            "cpu_ms": round(mean(slow, 2) * 1e3, 3),
            "involuntary_switches": round(mean(slow, 3), 2),
            "minor_faults": round(mean(slow, 4), 2),
            "python_gc_during": sum(map(in_gc, slow)),
        },
        "the_rest": {
            "cpu_ms": round(mean(fast, 2) * 1e3, 3),
            "involuntary_switches": round(mean(fast, 3), 2),
            "minor_faults": round(mean(fast, 4), 2),
            "python_gc_during": sum(map(in_gc, fast)),
        },
    }


async def _main(transport: str, n: int, rounds: int, mode: str) -> dict[str, Any]:
    import shellport

    rt = shellport.Runtime(config={"profile": "persistent"}, transport=transport)
    rt.tools()
    cwd = "/tmp"
    shells = [RawPtyShell(cwd) for _ in range(n)]
    sessions = [rt.session(cwd=cwd) for _ in range(n)]

    async def call(s: Any) -> None:
        if mode == "call":
            r = s.call("bash", {"command": "true"})
        else:
            r = await s.acall("bash", {"command": "true"})
        if r.is_error or r.meta.get("exitCode") != 0:
            raise RuntimeError(f"a call failed: {r.text[:200]}")

    for k in range(0, n, 256):  # start every shell, 256 at a time
        await asyncio.gather(*(s.acall("bash", {"command": "true"}) for s in sessions[k : k + 256]))
    gc.callbacks.append(_on_gc)
    floor: list[tuple[float, float, float, int, int]] = []
    ours: list[tuple[float, float, float, int, int]] = []
    try:
        for r in range(rounds):
            for i in range(n):
                for side in (0, 1) if (i + r) % 2 else (1, 0):
                    u0 = resource.getrusage(resource.RUSAGE_SELF)
                    t0 = _clock()
                    if side == 0:
                        await arun(shells[i], "true")
                    else:
                        await call(sessions[i])
                    t1 = _clock()
                    u1 = resource.getrusage(resource.RUSAGE_SELF)
                    rec = (
                        t0,
                        t1 - t0,
                        u1.ru_utime + u1.ru_stime - u0.ru_utime - u0.ru_stime,
                        u1.ru_nivcsw - u0.ru_nivcsw,
                        u1.ru_minflt - u0.ru_minflt,
                    )
                    (floor if side == 0 else ours).append(rec)
    finally:
        gc.callbacks.remove(_on_gc)
        for sh in shells:
            sh.close()
        for k in range(0, n, 256):
            await asyncio.gather(*(s.aclose() for s in sessions[k : k + 256]))
        rt.close()
    out: dict[str, Any] = {
        "transport": transport,
        "sessions": n,
        "mode": mode,
        "load_average": os.getloadavg(),
        "floor": _summary(floor),
        "shellport": _summary(ours),
    }
    out["p99_ratio"] = round(out["shellport"]["p99_ms"] / out["floor"]["p99_ms"], 2)
    out["p50_ratio"] = round(out["shellport"]["p50_ms"] / out["floor"]["p50_ms"], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("transport", choices=["library", "process"])
    ap.add_argument("sessions", type=int)
    ap.add_argument("--rounds", type=int, default=2, help="calls per session (default 2)")
    ap.add_argument(
        "--mode",
        choices=["acall", "call"],
        default="acall",
        help="acall as make bench does, or the blocking call",
    )
    a = ap.parse_args()
    print(json.dumps(asyncio.run(_main(a.transport, a.sessions, a.rounds, a.mode)), indent=1))


if __name__ == "__main__":
    main()
