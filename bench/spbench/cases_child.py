"""Cases that run every measurement in a fresh child: editor, cold start, scale."""

from __future__ import annotations

import os
import shutil
import time
from typing import Any

from . import editors
from .context import Context
from .stats import median, pct, ratio

# How long a fresh copy rests before an edit. A model's edit comes seconds
# after the file's last change (a call, the model's turn), never within
# shellport's change-time margin (100 ms, docs/TOOLS.md), so a copy made
# just before the edit would measure a case real use does not have.
SETTLE_SECONDS = 0.2


def _fresh_copy(pristine: str, work: str) -> None:
    """Copy the file for one edit, flushed to disk and settled.

    The copy is fsynced so its writeback does not compete with the edit's
    own fsync (the disk's floor, ``disk_costs``, is measured on a quiet disk
    too), then left for SETTLE_SECONDS.
    """
    shutil.copyfile(pristine, work)
    fd = os.open(work, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    time.sleep(SETTLE_SECONDS)


DISK_FLOOR = "disk floor"  # the editor case's write + fsync of the file, in the contenders' turn


def editor(ctx: Context) -> dict[str, Any]:
    z = ctx.sizes
    pristine = os.path.join(ctx.workdir, "pristine.py.txt")
    work_dir = os.path.join(ctx.workdir, "edit")
    os.makedirs(work_dir, exist_ok=True)
    work = os.path.join(work_dir, "big_module.py")
    facts = editors.make_file(pristine, z.editor_bytes)
    ctx.progress(f"editor: wrote a {facts['bytes'] / 1e6:.1f} MB file of {facts['lines']} lines")
    names = [n for n in editors.CONTENDERS if ctx.peer_ok(editors.NEEDS.get(n))]
    for n in editors.CONTENDERS:
        if n not in names:
            need = editors.NEEDS[n]
            ctx.problem("editor", n, f"not run: {need} {ctx.peer_reason(need)}")
    out: dict[str, Any] = {
        "file_bytes": facts["bytes"],
        "file_lines": facts["lines"],
        "target_line": facts["target_line"],
        "ops": {},
    }
    with open(pristine, "rb") as f:
        data = f.read()
    disk_runs: list[dict[str, float]] = []
    for op in ("view", "str_replace"):
        runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
        # The disk's floor takes its turn among the edits, under the same
        # conditions (a fresh copy, flushed and settled, just before), and
        # the order turns from one repetition to the next: on this shared
        # disk an fsync's time drifts across a run and depends on what was
        # written and freed just before it, so a floor measured once, or a
        # contender always run after the same one, skews the ratio. Turning
        # alone kept the process transport right after the library's in 9
        # of 11 repetitions, so every other full turn swaps the two.
        turn = [*names, DISK_FLOOR] if op == "str_replace" else names
        ours = [n for n in turn if n.startswith("shellport-")]
        swapped = [*reversed(ours), *(n for n in turn if n not in ours)]
        for rep in range(z.editor_reps):
            ctx.progress(f"editor {op}: repetition {rep + 1}/{z.editor_reps}")
            k = rep % len(turn)
            base = turn if (rep // len(turn)) % 2 == 0 else swapped
            for name in base[k:] + base[:k]:
                _fresh_copy(pristine, work)
                if name == DISK_FLOOR:
                    disk_runs.append(editors.disk_costs(data, work_dir))
                    continue
                r = ctx.child(
                    {
                        "kind": "editor",
                        "contender": name,
                        "op": op,
                        "path": work,
                        "facts": facts,
                    },
                    timeout=max(60.0, z.peer_timeout),
                )
                if "error" in r:
                    ctx.problem("editor", name, f"{op}: {r['error']}")
                else:
                    ok, why = editors.check_after(work, facts, op)
                    if r["is_error"]:
                        ok, why = False, f"isError result: {r['text_head']!r}"
                    elif op == "view" and not r["view_ok"]:
                        ok, why = (
                            False,
                            f"view does not show the last line: {r['text_head']!r}",
                        )
                    r["ok"] = ok
                    if not ok:
                        ctx.problem("editor", name, f"{op}: {why}"[:400])
                runs[name].append(r)
        secs = {
            n: [r.get("seconds") if r.get("ok") else None for r in rs] for n, rs in runs.items()
        }
        ratios = {
            n: {m: ratio(secs[n], secs[m]) for m in secs if m != n}
            for n in secs
            if n.startswith("shellport-")
        }
        out["ops"][op] = {
            "runs": runs,
            "ratios": ratios,
            "median_seconds": {n: median(v) for n, v in secs.items()},
        }
    out["disk"] = {k: median([d[k] for d in disk_runs]) for k in ("write", "write_fsync")}
    out["disk_runs"] = disk_runs
    return out


COLD = ["shellport-library", "shellport-process", "floor", "pexpect", "swe-rex"]
COLD_NEEDS = {"pexpect": "pexpect", "swe-rex": "swe-rex"}


def cold_start(ctx: Context) -> dict[str, Any]:
    z = ctx.sizes
    names = [n for n in COLD if ctx.peer_ok(COLD_NEEDS.get(n))]
    for n in COLD:
        if n not in names:
            ctx.problem(
                "cold_start",
                n,
                f"not run: {COLD_NEEDS[n]} {ctx.peer_reason(COLD_NEEDS[n])}",
            )
    _compile_package()
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    for rep in range(z.cold_reps):
        ctx.progress(f"cold start: repetition {rep + 1}/{z.cold_reps}")
        for name in names:
            r = ctx.child({"kind": "cold", "contender": name, "cwd": ctx.workdir}, timeout=60.0)
            if "error" in r:
                ctx.problem("cold_start", name, r["error"])
            elif not r.get("ok"):
                ctx.problem("cold_start", name, f"first call gave a wrong result: {r}")
            runs[name].append(r)
    phases: dict[str, dict[str, Any]] = {}
    for name, rs in runs.items():
        good = [r["phases"] for r in rs if "phases" in r]
        phases[name] = (
            {k: median([p[k] for p in good]) for k in ("import", "runtime", "first_call", "total")}
            if good
            else {}
        )
    totals = {n: [r.get("phases", {}).get("total") for r in rs] for n, rs in runs.items()}
    ratios = {
        n: {m: ratio(totals[n], totals[m]) for m in totals if m != n}
        for n in totals
        if n.startswith("shellport-")
    }
    return {"median_phases": phases, "ratios": ratios, "runs": runs}


def scale(ctx: Context) -> dict[str, Any]:
    z = ctx.sizes
    return _many(ctx, "scale", z.scale_sessions, z.scale_calls, z.scale_bursts, z.scale_reps)


def live_sessions(ctx: Context) -> dict[str, Any]:
    """Issue 16: many live persistent sessions, opened and closed all at once.

    No bursts: the case is what holding them costs (open all, close all,
    one caller at a time, memory and descriptors per session).
    """
    z = ctx.sizes
    return _many(ctx, "live_sessions", z.live_sessions, 0, 0, z.live_reps)


def _many(
    ctx: Context, case: str, sessions: int, calls: int, bursts: int, reps: int
) -> dict[str, Any]:
    names = ["floor", "shellport-library", "shellport-process"]
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    for rep in range(reps):
        for name in names:
            ctx.progress(f"{case}: {sessions} sessions, repetition {rep + 1}/{reps}, {name}")
            r = ctx.child(
                {
                    "kind": "scale",
                    "contender": name,
                    "sessions": sessions,
                    "calls": calls,
                    "bursts": bursts,
                    "cwd": ctx.workdir,
                },
                timeout=900.0,
            )
            if "error" in r:
                ctx.problem(case, name, r["error"])
                runs[name].append(r)
                continue
            for key in (
                "left_after_close",
                "zombies_after_close",
                "left_after_runtime_close",
            ):
                if r.get(key):
                    ctx.problem(
                        case,
                        name,
                        f"{key}: pids {r[key][:10]} ({len(r[key])} in all)",
                    )
            if r.get("bad_count"):
                ctx.problem(
                    case,
                    name,
                    f"{r['bad_count']} wrong results, e.g. {r['bad_results']}",
                )
            done = r.pop("bursts", [])
            lat = [x for b in done for x in b["latencies"]]
            busy = sum(b["seconds"] for b in done)
            r["calls"] = len(lat)
            r["throughput"] = len(lat) / busy if busy else None
            r["p50"], r["p90"], r["p99"] = pct(lat, 50), pct(lat, 90), pct(lat, 99)
            r["max"] = max(lat) if lat else None
            solo = r.pop("one_at_a_time", [])
            r["solo_p50"], r["solo_p99"] = pct(solo, 50), pct(solo, 99)
            runs[name].append(r)
    summary: dict[str, Any] = {}
    for name, rs in runs.items():
        good = [r for r in rs if "p50" in r]
        if not good:
            continue
        summary[name] = {
            k: median([r.get(k) for r in good])
            for k in (
                "throughput",
                "p50",
                "p90",
                "p99",
                "max",
                "solo_p50",
                "solo_p99",
                "runtime_rss",
                "runtime_fds",
                "open_seconds",
                "close_seconds",
                "live_processes",
            )
        }
        summary[name]["per_session"] = {
            k: median([_get_ps(r, k) for r in good])
            for k in (
                "runtime_bytes",
                "runtime_fds",
                "supervisors",
                "supervisor_private_bytes",
                "supervisor_fds",
            )
        }
        summary[name]["left_behind"] = sum(
            len(r.get("left_after_close", []))
            + len(r.get("zombies_after_close", []))
            + len(r.get("left_after_runtime_close", []))
            for r in good
        )
    p99 = {n: [r.get("p99") for r in rs] for n, rs in runs.items()}
    return {
        "sessions": sessions,
        "calls_per_session_per_burst": calls,
        "bursts": bursts,
        "summary": summary,
        "runs": runs,
        "ratios": {n: {"floor": ratio(p99[n], p99["floor"])} for n in p99 if n != "floor"},
    }


def _get_ps(run: dict[str, Any], key: str) -> Any:
    per = run.get("per_session")
    return per.get(key) if isinstance(per, dict) else None


def _compile_package() -> None:
    """Byte-compile shellport as pip does when it installs a wheel.

    An editable install has no bytecode until something writes it, and
    with PYTHONDONTWRITEBYTECODE set nothing does: every cold import would
    then compile the package from source, which no installed user pays
    (issue 16). compileall writes the caches even under that variable.
    """
    import compileall

    import shellport

    compileall.compile_dir(os.path.dirname(shellport.__file__), quiet=1)
