"""The remote case: what a sandbox's exec channel costs, and many containers driven
from one harness process (issue 15).

The sandboxes are the remote tests' own (python/tests/remote/sandboxes.py):
Podman containers on a root built here from this machine's static busybox and
bash (nothing is pulled), and sshd on 127.0.0.1 for a throw-away user. Each
container gets the runtime with shellport.remote.podman(..., install=True).

Channels: one Runtime and one persistent session per platform (local pipe,
unshare, podman exec -i, ssh -T), in a fresh child each, calling `true` one at a
time: the cost of a call through each channel against the local pipe.

Many: one child opens one Runtime per container over `podman exec -i`
(heartbeat on, as the helper sets it) with two persistent sessions each, all from
asyncio: open time (every runtime initialized and every shell started), then
every session makes K `true` calls back to back, all sessions at once, then each
session twice more one call at a time, then everything is closed. The same child
runs the same calls over N local runtimes (the bundled executable on a pipe).
After closing, nothing may be left in any container or under the child.

Where a sandbox cannot start (Podman or sshd not installed, not root), its part
is not run, and the report's problems say why.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shutil
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from .context import BENCH_DIR, Context
from .stats import median, pct, ratio

CONTENDERS = ["podman", "local"]
CHANNELS = ["local", "unshare", "podman", "ssh"]
SESSIONS = 2
PERSISTENT = {"profile": "persistent"}


def _sandboxes() -> ModuleType:
    """The remote tests' sandboxes module (one implementation for tests and bench)."""
    where = os.path.join(os.path.dirname(BENCH_DIR), "python", "tests", "remote")
    if where not in sys.path:
        sys.path.insert(0, where)
    import sandboxes

    return sandboxes


def remote(ctx: Context) -> dict[str, Any]:
    z = ctx.sizes
    sb = _sandboxes()
    why = sb.podman_problem()
    if why is not None:
        ctx.problem("remote", "podman", f"not run: {why}")
        return {"skipped": why}
    import shellport

    pool = concurrent.futures.ThreadPoolExecutor(8)
    containers: list[Any] = []
    out: dict[str, Any] = {
        "containers": z.remote_containers,
        "sessions": SESSIONS,
        "calls": z.remote_calls,
    }
    try:
        root = sb.build_rootfs(Path(ctx.workdir) / "rootfs")
        t = time.perf_counter()
        containers = list(pool.map(lambda _: sb.PodmanContainer(root), range(z.remote_containers)))
        out["start_seconds"] = time.perf_counter() - t
        names = [c.name for c in containers]
        t = time.perf_counter()
        list(pool.map(lambda n: shellport.remote.podman(n, install=True), names))
        out["install_seconds"] = time.perf_counter() - t
        ctx.progress(
            f"remote: {len(names)} containers started in {out['start_seconds']:.1f} s, "
            f"runtime installed in {out['install_seconds']:.1f} s"
        )
        out["channels"] = _channels(ctx, sb, names[0])
        runs: dict[str, list[dict[str, Any]]] = {n: [] for n in CONTENDERS}
        for rep in range(z.remote_reps):
            for name in CONTENDERS:
                ctx.progress(
                    f"remote: {len(names)} x {SESSIONS}, repetition "
                    f"{rep + 1}/{z.remote_reps}, {name}"
                )
                spec = {
                    "kind": "remote",
                    "contender": name,
                    "containers": names,
                    "init_pids": [c.init_pid for c in containers],
                    "calls": z.remote_calls,
                    "cwd": ctx.workdir,
                }
                r = ctx.child(spec, timeout=900.0)
                if "error" in r:
                    ctx.problem("remote", name, r["error"])
                elif r.get("left"):
                    ctx.problem("remote", name, f"left after close: {r['left'][:5]}")
                if r.get("bad_count"):
                    ctx.problem("remote", name, f"{r['bad_count']} wrong results: {r['bad']}")
                runs[name].append(r)
    except sb.Unavailable as exc:
        ctx.problem("remote", "podman", f"not run: {exc}")
        return {"skipped": str(exc)}
    finally:
        list(pool.map(lambda c: c.close(), containers))
        pool.shutdown()
    out["runs"] = runs
    out["summary"] = _summary(runs)
    p50 = {n: [r.get("p50") for r in rs] for n, rs in runs.items()}
    solo = {n: [r.get("solo_p50") for r in rs] for n, rs in runs.items()}
    opened = {n: [r.get("open_seconds") for r in rs] for n, rs in runs.items()}
    closed = {n: [r.get("close_seconds") for r in rs] for n, rs in runs.items()}
    out["ratios"] = {
        "p50": ratio(p50["podman"], p50["local"]),
        "solo_p50": ratio(solo["podman"], solo["local"]),
        "open": ratio(opened["podman"], opened["local"]),
        "close": ratio(closed["podman"], closed["local"]),
    }
    return out


def _channels(ctx: Context, sb: ModuleType, container: str) -> dict[str, Any]:
    """One runtime per platform, calls one at a time, in fresh children."""
    z = ctx.sizes
    params: dict[str, dict[str, Any]] = {
        "local": {},
        "unshare": {},
        "podman": {"container": container},
    }
    server = None
    try:
        try:
            server = sb.SSHServer()
            rel = ".shellport-bench"
            params["ssh"] = {
                "user": server.user,
                "port": server.port,
                "identity": str(server.key),
                "options": server.options,
                "path": f"{rel}/shellport",
            }
            import shellport

            shellport.remote.ssh("127.0.0.1", install=True, **params["ssh"])
        except sb.Unavailable as exc:
            ctx.problem("remote", "ssh", f"not run: {exc}")
        runs: dict[str, list[dict[str, Any]]] = {n: [] for n in params}
        for rep in range(z.remote_reps):
            for name, p in params.items():
                ctx.progress(f"remote: channel {name}, repetition {rep + 1}/{z.remote_reps}")
                spec = {
                    "kind": "remote-channel",
                    "platform": name,
                    "params": p,
                    "calls": z.remote_channel_calls,
                    "cwd": ctx.workdir,
                }
                r = ctx.child(spec, timeout=300.0)
                if "error" in r:
                    ctx.problem("remote", f"channel {name}", r["error"])
                else:
                    r["p50"] = pct(r["latencies"], 50)
                runs[name].append(r)
    finally:
        if server is not None:
            server.close()
            shutil.rmtree(server.home / ".shellport-bench", ignore_errors=True)
    out: dict[str, Any] = {}
    for name, rs in runs.items():
        lat = [x for r in rs for x in r.get("latencies", [])]
        if not lat:
            continue
        out[name] = {
            "calls": len(lat),
            "p50": pct(lat, 50),
            "p99": pct(lat, 99),
            "open_seconds": median([r.get("open_seconds") for r in rs]),
            "vs_local": ratio([r.get("p50") for r in rs], [r.get("p50") for r in runs["local"]]),
        }
    return out


def _summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for name, rs in runs.items():
        good = [r for r in rs if "latencies" in r]
        lat = [x for r in good for x in r["latencies"]]
        solo = [x for r in good for x in r.get("solo", [])]
        if not good:
            continue
        summary[name] = {
            "calls": len(lat),
            "p50": pct(lat, 50),
            "p99": pct(lat, 99),
            "solo_p50": pct(solo, 50),
            "solo_p99": pct(solo, 99),
            "open_seconds": median([r["open_seconds"] for r in good]),
            "close_seconds": median([r["close_seconds"] for r in good]),
            "left_behind": sum(len(r.get("left", [])) for r in good),
        }
        for r in good:
            r["p50"] = pct(r["latencies"], 50)
            r["p99"] = pct(r.pop("latencies"), 99)
            r["solo_p50"] = pct(r.pop("solo", []), 50)
    return summary


# --- the child ---------------------------------------------------------------------------


async def run_child(spec: dict[str, Any]) -> dict[str, Any]:
    """Open, call and close N runtimes x 2 sessions from one event loop."""
    import shellport

    name, containers, calls = spec["contender"], spec["containers"], spec["calls"]
    n = len(containers)
    loop = asyncio.get_running_loop()
    # Opening blocks a thread per runtime (initialize over the channel): with
    # the default executor (min(32, cpus + 4) threads) they would queue.
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(2 * n + 4))
    config = {"profile": "persistent"}
    if name == "podman":
        runtimes = [shellport.Runtime(config, shellport.remote.podman(c)) for c in containers]
        cwd = "/ws"
    else:
        runtimes = [shellport.Runtime(config, "process") for _ in containers]
        cwd = spec["cwd"]
    bad: list[str] = []
    clock = time.perf_counter

    async def call(s: shellport.Session) -> float:
        t = clock()
        r = await s.acall("bash", {"command": "true"})
        if r.is_error or r.text not in ("", "[no output]"):
            bad.append(repr(r.text[:80]))
        return clock() - t

    t = clock()
    await asyncio.gather(*(rt.__aenter__() for rt in runtimes))
    sessions = await asyncio.gather(
        *(asyncio.to_thread(rt.session, cwd) for rt in runtimes for _ in range(SESSIONS))
    )
    await asyncio.gather(*(call(s) for s in sessions))  # every shell is live from here on
    open_seconds = clock() - t

    async def worker(s: shellport.Session) -> list[float]:
        return [await call(s) for _ in range(calls)]

    t = clock()
    per_session = await asyncio.gather(*(worker(s) for s in sessions))
    busy = clock() - t
    # The same live sessions, one call at a time: the channel's own cost per
    # call, without the queueing of 2N callers on this machine's cores.
    solo = [await call(s) for _ in range(2) for s in sessions]
    t = clock()
    await asyncio.gather(*(rt.aclose() for rt in runtimes))
    close_seconds = clock() - t
    left = _left(name, spec["init_pids"])
    return {
        "open_seconds": open_seconds,
        "close_seconds": close_seconds,
        "busy_seconds": busy,
        "latencies": [x for lat in per_session for x in lat],
        "solo": solo,
        "left": left,
        "bad_count": len(bad),
        "bad": bad[:3],
    }


def _left(name: str, init_pids: list[int]) -> list[int]:
    """Processes still there a moment after close: in the containers, or under us."""
    from . import procs

    sb = _sandboxes()
    deadline = time.monotonic() + 5.0
    while True:
        if name == "podman":
            left = [p for init in init_pids for p in sb.in_pid_namespace(init)]
        else:
            left = list(procs.descendants(os.getpid()))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def run_channel(spec: dict[str, Any]) -> dict[str, Any]:
    """One runtime through one channel: open, then calls one at a time."""
    import shellport

    name, p = spec["platform"], spec["params"]
    cwd = spec["cwd"]
    if name == "local":
        transport: Any = "process"
    elif name == "unshare":
        transport = shellport.remote.unshare()
    elif name == "podman":
        transport = shellport.remote.podman(p["container"])
        cwd = "/ws"
    else:
        transport = shellport.remote.ssh("127.0.0.1", **p)
        cwd = "/tmp"
    clock = time.perf_counter
    t = clock()
    rt = shellport.Runtime(PERSISTENT, transport)
    s = rt.session(cwd)
    s.call("bash", {"command": "true"})
    open_seconds = clock() - t
    lat = []
    for _ in range(spec["calls"]):
        t = clock()
        r = s.call("bash", {"command": "true"})
        lat.append(clock() - t)
        assert not r.is_error, r.text
    rt.close()
    return {"open_seconds": open_seconds, "latencies": lat}


# --- the report ---------------------------------------------------------------------------


def section(case: dict[str, Any], ms: Any, x_: Any, table: Any) -> str:
    """The report's section for this case (helpers passed in from report.py)."""
    if "skipped" in case:
        return f"## Remote sandboxes\n\nNot run: {case['skipped']}.\n"
    channels = case.get("channels", {})
    channel_rows = [
        [
            f"`{n}`",
            str(v["calls"]),
            ms(v["p50"]),
            ms(v["p99"]),
            x_(v["vs_local"]["median"]) if v["vs_local"].get("median") else "n/a",
            ms(v["open_seconds"]),
        ]
        for n, v in channels.items()
    ]
    channel_part = (
        "## Remote sandboxes: the channel's cost per call\n\n"
        "One runtime and one persistent session per channel, in a fresh process each: "
        "`local` is the bundled executable on a pipe, `unshare` the same in new user and "
        "network namespaces (`shellport.remote.unshare`), `podman` `podman exec -i` into a "
        "container (`shellport.remote.podman`), `ssh` `ssh -T` to sshd on 127.0.0.1 "
        "(`shellport.remote.ssh`); heartbeats as the helpers set them. Calls are persistent "
        "bash `true`, one at a time. Open is the runtime initialized through the channel and "
        "the shell started.\n\n"
        + table(["Channel", "calls", "p50", "p99", "p50 ÷ local", "open"], channel_rows)
    )
    ss = case.get("summary", {})
    rows = [
        [
            f"`{n}`",
            str(v["calls"]),
            ms(v["p50"]),
            ms(v["p99"]),
            f"{ms(v['solo_p50'])} / {ms(v['solo_p99'])}",
            ms(v["open_seconds"]),
            ms(v["close_seconds"]),
            str(v["left_behind"]),
        ]
        for n, v in ss.items()
    ]
    r = case.get("ratios", {})

    def rx(key: str) -> str:
        v = r.get(key) or {}
        return x_(v["median"]) if v.get("median") is not None else "n/a"

    n, s, k = case.get("containers"), case.get("sessions"), case.get("calls")
    return (
        channel_part + f"\n## Remote sandboxes: many containers from one harness\n\n"
        f"{n} Podman containers × {s} persistent sessions, driven from one asyncio process "
        f"over `podman exec -i` (`shellport.remote.podman`, heartbeat on), against {n} local "
        f'runtimes (`transport="process"`) doing the same calls. Open is every runtime '
        f"initialized and every shell started; then each session makes {k} `true` calls "
        f"back to back, all sessions at once (on this machine's cores, that measures "
        f"queueing as much as the channel), then every session twice more, one call at a time "
        f"(the channel's own cost per call); close is every runtime closed. Starting the "
        f"containers took {case.get('start_seconds', 0):.1f} s and installing the runtime "
        f"into all of them {case.get('install_seconds', 0):.1f} s (not counted in open). "
        f"Medians over repetitions; latencies pooled.\n\n"
        + table(
            [
                "Contender",
                "calls",
                "p50 (all at once)",
                "p99 (all at once)",
                "one at a time p50 / p99",
                "open all",
                "close all",
                "left behind",
            ],
            rows,
        )
        + f"\npodman ÷ local: call p50 all at once {rx('p50')}, one at a time "
        f"{rx('solo_p50')}; open {rx('open')}; close {rx('close')}.\n"
    )
