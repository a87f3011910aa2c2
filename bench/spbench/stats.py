"""Percentiles, per-repetition ratios and timing loops.

Every comparison is made per repetition (contenders alternate inside one
repetition) and summarised as the median of the per-repetition ratios, with
the spread across repetitions beside it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any, Callable


def pct(samples: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100), nearest-rank; None for no samples."""
    if not samples:
        return None
    s = sorted(samples)
    k = max(0, min(len(s) - 1, round(q / 100.0 * len(s) + 0.5) - 1))
    return s[k]


def median(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def time_calls(fn: Callable[[], Any], n: int) -> list[float]:
    """Call fn n times; return each call's seconds."""
    out = []
    clock = time.perf_counter
    for _ in range(n):
        t = clock()
        fn()
        out.append(clock() - t)
    return out


def time_interleaved(fns: dict[str, Callable[[], Any]], n: int) -> dict[str, list[float]]:
    """Call every fn n times, one call of each in turn, so that whatever the
    machine does meanwhile falls on all of them alike; return each one's
    call seconds. Meant for a pair (A B A B …: each call follows one of
    the other); with more, each follows the one before it in fns."""
    out: dict[str, list[float]] = {name: [] for name in fns}
    clock = time.perf_counter
    turn = list(fns.items())
    for _ in range(n):
        for name, fn in turn:
            t = clock()
            fn()
            out[name].append(clock() - t)
    return out


def summarize(reps: list[list[float]]) -> dict[str, Any]:
    """Summary of one contender: pooled p50/p90/p99 and each repetition's p50 (seconds)."""
    pooled = [x for r in reps for x in r]
    return {
        "n": len(pooled),
        "p50": pct(pooled, 50),
        "p90": pct(pooled, 90),
        "p99": pct(pooled, 99),
        "mean": statistics.fmean(pooled) if pooled else None,
        "rep_p50": [pct(r, 50) for r in reps],
        "rep_p90": [pct(r, 90) for r in reps],
    }


def ratio(num: Sequence[float | None], den: Sequence[float | None]) -> dict[str, Any]:
    """Median and spread of num[i]/den[i] over repetitions i where both exist."""
    rs = [a / b for a, b in zip(num, den) if a is not None and b]
    if not rs:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {
        "median": statistics.median(rs),
        "min": min(rs),
        "max": max(rs),
        "n": len(rs),
    }
