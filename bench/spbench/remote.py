"""The remote case: many containers driven from one harness process (issue 15).

N Podman containers (a root built here from this machine's static busybox and
bash; nothing is pulled) each get the runtime with shellport.remote.podman(...,
install=True). One child process then opens one Runtime per container over
`podman exec -i` (heartbeat on, as the helper sets it) with two persistent
sessions each, all from asyncio: open time (every runtime initialized and every
shell started), then every session makes K `true` calls back to back, all
sessions at once, then everything is closed. The same child runs the same calls
over N local runtimes (the bundled executable on a pipe) for comparison. After
closing, nothing may be left in any container or under the child.

Where Podman cannot run (not installed, not root), the case is not run and says
why in the report's problems.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shutil
import subprocess
import time
import uuid
from typing import Any

from .context import Context
from .stats import median, pct, ratio

CONTENDERS = ["podman", "local"]
SESSIONS = 2
TOOLS = ("podman", "runc", "busybox")


def remote(ctx: Context) -> dict[str, Any]:
    z = ctx.sizes
    why = _podman_problem()
    if why is not None:
        ctx.problem("remote", "podman", f"not run: {why}")
        return {"skipped": why}
    import shellport

    root = _rootfs(os.path.join(ctx.workdir, "rootfs"))
    names = [
        f"shellport-bench-{uuid.uuid4().hex[:8]}" for _ in range(z.remote_containers)
    ]
    pool = concurrent.futures.ThreadPoolExecutor(8)
    out: dict[str, Any] = {
        "containers": len(names),
        "sessions": SESSIONS,
        "calls": z.remote_calls,
    }
    try:
        t = time.perf_counter()
        init_pids = list(pool.map(lambda n: _start(n, root), names))
        out["start_seconds"] = time.perf_counter() - t
        t = time.perf_counter()
        list(pool.map(lambda n: shellport.remote.podman(n, install=True), names))
        out["install_seconds"] = time.perf_counter() - t
        ctx.progress(
            f"remote: {len(names)} containers started in {out['start_seconds']:.1f} s, "
            f"runtime installed in {out['install_seconds']:.1f} s"
        )
        runs: dict[str, list[dict[str, Any]]] = {n: [] for n in CONTENDERS}
        for rep in range(z.remote_reps):
            for name in CONTENDERS:
                ctx.progress(f"remote: repetition {rep + 1}/{z.remote_reps}, {name}")
                spec = {
                    "kind": "remote",
                    "contender": name,
                    "containers": names,
                    "init_pids": init_pids,
                    "calls": z.remote_calls,
                    "cwd": ctx.workdir,
                }
                r = ctx.child(spec, timeout=900.0)
                if "error" in r:
                    ctx.problem("remote", name, r["error"])
                elif r.get("left"):
                    ctx.problem("remote", name, f"left after close: {r['left'][:5]}")
                if r.get("bad_count"):
                    ctx.problem(
                        "remote", name, f"{r['bad_count']} wrong results: {r['bad']}"
                    )
                runs[name].append(r)
    finally:
        list(pool.map(_remove, names))
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
        runtimes = [
            shellport.Runtime(config, shellport.remote.podman(c)) for c in containers
        ]
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
        *(
            asyncio.to_thread(rt.session, cwd)
            for rt in runtimes
            for _ in range(SESSIONS)
        )
    )
    await asyncio.gather(
        *(call(s) for s in sessions)
    )  # every shell is live from here on
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

    deadline = time.monotonic() + 5.0
    while True:
        if name == "podman":
            left = [p for init in init_pids for p in _in_pid_namespace(init)]
        else:
            left = list(procs.descendants(os.getpid()))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


# --- containers ----------------------------------------------------------------------------


def _podman_problem() -> str | None:
    for tool in TOOLS:
        if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}"):
            return f"{tool} is not installed (Debian packages podman, runc, busybox-static)"
    if os.geteuid() != 0:
        return "rootful podman containers need root"
    return None


def _rootfs(root: str) -> str:
    """Static busybox with every applet, bash and the libraries ldd names."""
    busybox, bash = shutil.which("busybox"), shutil.which("bash")
    assert busybox and bash
    os.makedirs(os.path.join(root, "bin"))
    shutil.copy2(busybox, os.path.join(root, "bin", "busybox"))
    shutil.copy2(bash, os.path.join(root, "bin", "bash"))
    applets = subprocess.run(
        [busybox, "--list"], capture_output=True, text=True, check=True
    )
    for applet in applets.stdout.split():
        link = os.path.join(root, "bin", applet)
        if not os.path.lexists(link):
            os.symlink("busybox", link)
    ldd = subprocess.run(
        ["ldd", bash], capture_output=True, text=True, check=False
    ).stdout
    for lib in (w for w in ldd.split() if w.startswith("/") and os.path.exists(w)):
        dest = os.path.join(root, lib.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(lib, dest)
    for d in ("etc", "proc", "sys", "dev", "ws", "opt", "tmp"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    os.chmod(os.path.join(root, "tmp"), 0o1777)
    with open(os.path.join(root, "etc", "passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/bin/bash\n")
    return root


def _start(name: str, root: str) -> int:
    subprocess.run(
        [
            "podman",
            "run",
            "-d",
            "--name",
            name,
            "--runtime",
            "runc",
            "--ulimit",
            "nofile=4096:4096",
            "--ulimit",
            "nproc=4096:4096",
            "--network",
            "none",
            "--rootfs",
            f"{root}:O",
            "/bin/sleep",
            "1000000000",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    pid = subprocess.run(
        ["podman", "inspect", "-f", "{{.State.Pid}}", name],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return int(pid.stdout.strip())


def _remove(name: str) -> None:
    subprocess.run(
        ["podman", "rm", "-f", "-t", "0", name],
        capture_output=True,
        timeout=300,
        check=False,
    )


def _in_pid_namespace(init_pid: int) -> list[int]:
    try:
        ns = os.readlink(f"/proc/{init_pid}/ns/pid")
    except OSError:
        return []
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != init_pid:
            try:
                if os.readlink(f"/proc/{entry}/ns/pid") == ns:
                    out.append(int(entry))
            except OSError:
                continue
    return out


# --- the report ---------------------------------------------------------------------------


def section(case: dict[str, Any], ms: Any, x_: Any, table: Any) -> str:
    """The report's section for this case (helpers passed in from report.py)."""
    if "skipped" in case:
        return f"## Many containers from one harness\n\nNot run: {case['skipped']}.\n"
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
        f"## Many containers from one harness\n\n"
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
