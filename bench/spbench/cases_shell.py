"""Cases measured inside this process: persistent round trip, one-shot,
transport overhead; and the seq output case, one child per measurement."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from typing import Any, Callable

from . import procs
from .context import Context
from .shells import FACTORIES, NEEDS, Shell
from .stats import ratio, summarize, time_calls

RTT_ORDER = [
    "floor",
    "shellport-library",
    "shellport-process",
    "shellport-library-acall",
    "pexpect-nodelay",
    "pexpect",
    "swe-rex",
]
SLOW = {"pexpect", "swe-rex"}  # fixed sleeps per call: fewer calls, same repetitions
SHELLPORT = ["shellport-library", "shellport-process"]
CPU_ORDER = ["floor", *SHELLPORT]  # whose CPU per call is measured


def _open(ctx: Context, case: str, names: list[str]) -> dict[str, Shell]:
    shells: dict[str, Shell] = {}
    for name in names:
        need = NEEDS[name]
        if not ctx.peer_ok(need):
            ctx.problem(case, name, f"not run: {need} {ctx.peer_reason(need or '')}")
            continue
        try:
            sh = FACTORIES[name](ctx.workdir)
            got = sh.run("echo hi").replace("\r", "").strip()
        except Exception as exc:
            ctx.problem(case, name, f"could not start or run: {exc!r}"[:400])
            continue
        if got != "hi":
            ctx.problem(case, name, f"`echo hi` returned {got!r}, expected 'hi'")
        shells[name] = sh
    return shells


def _ratios(reps: dict[str, list[float]], mine: list[str]) -> dict[str, dict[str, Any]]:
    """ratios[a][b] = median over repetitions of a's p50 / b's p50."""
    return {a: {b: ratio(reps[a], reps[b]) for b in reps if b != a} for a in mine if a in reps}


def persistent_rtt(ctx: Context) -> dict[str, Any]:
    z = ctx.sizes
    shells = _open(ctx, "persistent_true", RTT_ORDER)
    for name, sh in list(shells.items()):
        try:
            time_calls(lambda sh=sh: sh.run("true"), 2 if sh.name in SLOW else 20)  # warm up
        except Exception as exc:
            # A peer that fails here (swe-rex's 0.1 s prompt wait, on a
            # busy moment) is reported and left out, not the whole case.
            ctx.problem("persistent_true", name, f"failed while warming up: {exc!r}"[:400])
            del shells[name]
            with contextlib.suppress(Exception):  # already reported: it failed
                sh.close()
    # Whether the shells run their loop with the turn builtin (Linux): a
    # run that measured the loop as shell commands says so.
    turn: dict[str, bool] = {}
    for name in SHELLPORT:
        if name in shells:
            turn[name] = shells[name].run("type -t __sp_turn").strip() == "builtin"
            if sys.platform.startswith("linux") and not turn[name]:
                ctx.problem("persistent_true", name, "the shell did not load the turn builtin")
    samples: dict[str, list[list[float]]] = {n: [] for n in shells}
    # CPU (user + system) of this process and every descendant while one
    # contender runs its calls: the caller, the runtime, the supervisor and
    # bash (issue 16). The others are idle meanwhile.
    cpu: dict[str, dict[str, float]] = {n: {"seconds": 0.0, "calls": 0} for n in CPU_ORDER}
    me = os.getpid()
    for rep in range(z.reps):
        ctx.progress(f"persistent `true`: repetition {rep + 1}/{z.reps}")
        for name, sh in shells.items():
            n = z.slow_calls if name in SLOW else z.fast_calls
            c0 = procs.cpu_seconds(me) if name in cpu else None
            try:
                samples[name].append(time_calls(lambda sh=sh: sh.run("true"), n))
            except Exception as exc:
                ctx.problem("persistent_true", name, f"failed in repetition {rep + 1}: {exc!r}")
                continue
            c1 = procs.cpu_seconds(me) if c0 is not None else None
            if c0 is not None and c1 is not None:
                cpu[name]["seconds"] += c1 - c0
                cpu[name]["calls"] += n
    for sh in shells.values():
        try:
            sh.close()
        except Exception as exc:
            ctx.problem("persistent_true", sh.name, f"close failed: {exc!r}")
    summary = {n: summarize(s) for n, s in samples.items() if s}
    rep_p50 = {n: v["rep_p50"] for n, v in summary.items()}
    per_call = {n: v["seconds"] / v["calls"] for n, v in cpu.items() if v["calls"] and v["seconds"]}
    return {
        "contenders": summary,
        "ratios": _ratios(rep_p50, [*SHELLPORT, "shellport-library-acall"]),
        "cpu_per_call": per_call,
        "turn_builtin": turn,
        "cpu_ratio": {
            n: per_call[n] / per_call["floor"]
            for n in SHELLPORT
            if n in per_call and per_call.get("floor")
        },
    }


def _expected_seq_bytes(n: int) -> int:
    return sum(len(str(i)) + 1 for i in range(1, n + 1))


def seq_output(ctx: Context) -> dict[str, Any]:
    z = ctx.sizes
    command = f"seq 1 {z.seq_n}"
    want = _expected_seq_bytes(z.seq_n)
    names = ["floor", "shellport-library", "shellport-process", "pexpect", "swe-rex"]
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    skipped = set()
    for name in names:
        need = NEEDS[name]
        if not ctx.peer_ok(need):
            ctx.problem("seq_output", name, f"not run: {need} {ctx.peer_reason(need or '')}")
            skipped.add(name)
    for rep in range(z.seq_reps):
        for name in names:
            peer = name in ("pexpect", "swe-rex")
            if name in skipped or (peer and rep >= z.seq_peer_reps):
                continue
            ctx.progress(f"`{command}`: repetition {rep + 1}/{z.seq_reps}, {name}")
            r = ctx.child(
                {
                    "kind": "seq",
                    "contender": name,
                    "cwd": ctx.workdir,
                    "command": command,
                },
                timeout=z.peer_timeout if peer else max(120.0, z.peer_timeout),
            )
            if "error" in r:
                ctx.problem("seq_output", name, r["error"])
                if r.get("timeout"):
                    skipped.add(name)  # one timeout is the answer; do not repeat it
            else:
                r["output_ok"] = _seq_ok(name, r, want, z.seq_n)
                if not r["output_ok"]:
                    ctx.problem("seq_output", name, f"wrong output: {r}"[:400])
            runs[name].append(r)
    secs = {n: [r.get("seconds") for r in rs] for n, rs in runs.items() if rs}
    reps_floor = secs.get("floor", [])
    ratios = {
        n: {"floor": ratio(secs[n], reps_floor[: len(secs[n])])} for n in secs if n != "floor"
    }
    return {"command": command, "output_bytes": want, "runs": runs, "ratios": ratios}


def _seq_ok(name: str, r: dict[str, Any], want: int, n: int) -> bool:
    if not r.get("text_tail", "").rstrip().endswith(str(n)):
        return False
    if name.startswith("shellport-"):
        if r.get("meta", {}).get("exitCode") != 0:
            return False
        spilled = r.get("spill_bytes")
        return spilled == want if r["meta"].get("truncated") else r["text_chars"] == want
    return True


def oneshot(ctx: Context) -> dict[str, Any]:
    import shellport

    z = ctx.sizes
    runners: dict[str, Callable[[], Any]] = {}
    runtimes = []
    for transport in ("library", "process"):
        try:
            rt = shellport.Runtime(transport=transport)
            s = rt.session(cwd=ctx.workdir)
            runtimes.append(rt)
            r = s.call("bash", {"command": "echo hi", "description": "Say hi"})
            if r.text.strip() != "hi" or r.meta.get("exitCode") != 0:
                ctx.problem(
                    "oneshot_true",
                    f"shellport-{transport}",
                    f"`echo hi` gave {r.text!r}",
                )
            runners[f"shellport-{transport}"] = lambda s=s: s.call(
                "bash", {"command": "true", "description": "Do nothing"}
            )
        except Exception as exc:
            ctx.problem("oneshot_true", f"shellport-{transport}", repr(exc))
    runners["subprocess-sh"] = lambda: subprocess.run(
        "true", shell=True, capture_output=True, text=True, cwd=ctx.workdir
    )
    runners["subprocess-bash"] = lambda: subprocess.run(
        ["bash", "-c", "true"], capture_output=True, text=True, cwd=ctx.workdir
    )
    samples: dict[str, list[list[float]]] = {n: [] for n in runners}
    for fn in runners.values():
        time_calls(fn, 3)
    for rep in range(z.reps):
        ctx.progress(f"one-shot `true`: repetition {rep + 1}/{z.reps}")
        for name, fn in runners.items():
            samples[name].append(time_calls(fn, z.oneshot_calls))
    for rt in runtimes:
        rt.close()
    summary = {n: summarize(s) for n, s in samples.items()}
    rep_p50 = {n: v["rep_p50"] for n, v in summary.items()}
    return {"contenders": summary, "ratios": _ratios(rep_p50, SHELLPORT)}


def transport(ctx: Context) -> dict[str, Any]:
    """Per-call cost of each transport on calls that do almost nothing."""
    import os

    import shellport

    z = ctx.sizes
    tiny = os.path.join(ctx.workdir, "tiny.txt")
    page = os.path.join(ctx.workdir, "page.txt")
    with open(tiny, "w") as f:
        f.write("a\n")
    with open(page, "w") as f:
        f.write("".join(f"line {i:04d} " + "x" * 50 + "\n" for i in range(1, 301)))
    calls = {
        "view 2-byte file": {"command": "view", "path": tiny},
        "view 16k-char page": {"command": "view", "path": page},
    }
    rts = {t: shellport.Runtime(transport=t) for t in ("library", "process")}
    sessions = {t: rt.session(cwd=ctx.workdir) for t, rt in rts.items()}
    out: dict[str, Any] = {}
    for label, args in calls.items():
        samples: dict[str, list[list[float]]] = {t: [] for t in rts}
        for _rep in range(z.reps):
            for t, s in sessions.items():
                samples[t].append(
                    time_calls(
                        lambda s=s, a=args: s.call("str_replace_editor", a),
                        z.fast_calls,
                    )
                )
        r = sessions["library"].call("str_replace_editor", args)
        summary = {t: summarize(v) for t, v in samples.items()}
        out[label] = {
            "contenders": summary,
            "result_chars": len(r.text),
            "ratio_process_library": ratio(
                summary["process"]["rep_p50"], summary["library"]["rep_p50"]
            ),
        }
        ctx.progress(f"transport overhead: {label} done")
    for rt in rts.values():
        rt.close()
    return out
