"""Issue 12's cost: the same calls in a session without a sandbox and in one
under workspace-write with network off (Landlock and seccomp applied by the
spawn helper), both transports, one call of each in turn: the cost sought
is a few percent, less than what blocks of calls made one after the other
differ by on a busy machine."""

from __future__ import annotations

from typing import Any, Callable

from .context import Context
from .stats import ratio, summarize, time_calls, time_interleaved

SANDBOX = {"mode": "workspace-write", "network": False}


def _pair(ctx: Context, rt: Any, profile: str, label: str) -> dict[str, Callable[[], Any]] | None:
    plain = rt.session(cwd=ctx.workdir)
    boxed = rt.session(cwd=ctx.workdir, sandbox=SANDBOX)
    args: dict[str, Any] = {"command": "true"}
    if profile == "oneshot":
        args["description"] = "Do nothing"
    for name, s in (("plain", plain), ("sandboxed", boxed)):
        r = s.call("bash", args)
        if r.is_error or r.meta.get("exitCode") != 0:
            ctx.problem("sandbox", f"{label}-{name}", f"`true` gave {r.text!r}"[:300])
            return None
    return {
        f"{label}-plain": lambda: plain.call("bash", args),
        f"{label}-sandboxed": lambda: boxed.call("bash", args),
    }


def _fresh(ctx: Context, rt: Any, label: str) -> dict[str, Callable[[], Any]]:
    """A persistent shell's spawn: a new session, its first call, its close."""

    def first(sandbox: dict[str, Any] | None) -> Callable[[], Any]:
        def run() -> None:
            with rt.session(cwd=ctx.workdir, sandbox=sandbox) as s:
                s.call("bash", {"command": "true"})

        return run

    return {f"{label}-plain": first(None), f"{label}-sandboxed": first(SANDBOX)}


def sandbox(ctx: Context) -> dict[str, Any]:
    import shellport

    z = ctx.sizes
    out: dict[str, Any] = {}
    runtimes = []
    groups: dict[str, dict[str, Callable[[], Any]]] = {}
    try:
        for transport in ("library", "process"):
            one = shellport.Runtime(transport=transport)
            per = shellport.Runtime(config={"profile": "persistent"}, transport=transport)
            runtimes += [one, per]
            info = one.sandbox
            out["support"] = info
            if info.get("backend") == "none":
                ctx.problem("sandbox", "shellport", f"not run: {info.get('reason')}")
                return out
            for key, rt, profile in (
                ("oneshot", one, "oneshot"),
                ("persistent", per, "persistent"),
            ):
                pair = _pair(ctx, rt, profile, f"{transport}")
                if pair:
                    groups.setdefault(key, {}).update(pair)
            groups.setdefault("spawn", {}).update(_fresh(ctx, per, transport))
        calls = {
            "oneshot": z.oneshot_calls,
            "persistent": z.fast_calls,
            "spawn": z.oneshot_calls,
        }
        for key, fns in groups.items():
            samples: dict[str, list[list[float]]] = {n: [] for n in fns}
            for fn in fns.values():
                time_calls(fn, 3)
            for rep in range(z.reps):
                ctx.progress(f"sandbox {key}: repetition {rep + 1}/{z.reps}")
                # Plain and sandboxed alternate within each transport; the
                # transports take turns by repetition, not by call, so no
                # call follows one of the same session.
                for transport in ("library", "process"):
                    pair = {n: f for n, f in fns.items() if n.startswith(f"{transport}-")}
                    for name, got in time_interleaved(pair, calls[key]).items():
                        samples[name].append(got)
            summary = {n: summarize(s) for n, s in samples.items()}
            extra, ratios = {}, {}
            for transport in ("library", "process"):
                p, s = (
                    summary.get(f"{transport}-plain"),
                    summary.get(f"{transport}-sandboxed"),
                )
                if p and s:
                    diffs = [b - a for a, b in zip(p["rep_p50"], s["rep_p50"]) if a and b]
                    extra[transport] = sorted(diffs)[len(diffs) // 2] if diffs else None
                    ratios[transport] = ratio(s["rep_p50"], p["rep_p50"])
            out[key] = {"contenders": summary, "extra_p50": extra, "ratio": ratios}
    finally:
        for rt in runtimes:
            rt.close()
    return out
