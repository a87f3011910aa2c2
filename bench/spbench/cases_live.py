"""Live output (issue 17): what a call costs with and without on_output.

The same persistent and one-shot bash calls, alternating, plain and with a
consumer that keeps each piece: `true` (the per-call overhead of asking for
a stream) and `seq 1 20000` (a command whose output is streamed).
"""

from __future__ import annotations

from typing import Any

from .context import Context
from .stats import ratio, summarize, time_calls

CALLS = {
    "persistent `true`": ("persistent", "true"),
    "persistent `seq 1 20000`": ("persistent", "seq 1 20000"),
    "one-shot `true`": ("oneshot", "true"),
    "one-shot `seq 1 20000`": ("oneshot", "seq 1 20000"),
}


def live_output(ctx: Context) -> dict[str, Any]:
    import shellport

    z = ctx.sizes
    out: dict[str, Any] = {}
    for transport in ("library", "process"):
        rts = {p: shellport.Runtime({"profile": p}, transport) for p in ("persistent", "oneshot")}
        sessions = {p: rt.session(cwd=ctx.workdir) for p, rt in rts.items()}
        for label, (profile, command) in CALLS.items():
            s = sessions[profile]
            args: dict[str, Any] = {"command": command}
            if profile == "oneshot":
                args["description"] = "Benchmark"
            pieces: list[str] = []
            plain = s.call("bash", args)
            s.call("bash", args, on_output=pieces.append)
            whole = plain.presentation.get("rawOutput", {}).get("output")
            if not plain.meta.get("truncated") and "".join(pieces) != whole:
                ctx.problem("live_output", f"{transport} {label}", "the pieces joined differ")
            n = max(z.fast_calls // (20 if "seq" in command else 1), 5)
            samples: dict[str, list[list[float]]] = {"plain": [], "stream": []}
            for _rep in range(z.reps):
                samples["plain"].append(time_calls(lambda s=s, a=args: s.call("bash", a), n))
                samples["stream"].append(
                    time_calls(
                        lambda s=s, a=args: s.call("bash", a, on_output=lambda _t: None),
                        n,
                    )
                )
            summary = {k: summarize(v) for k, v in samples.items()}
            out[f"{transport}: {label}"] = {
                "contenders": summary,
                "pieces": len(pieces),
                "ratio_stream_plain": ratio(
                    summary["stream"]["rep_p50"], summary["plain"]["rep_p50"]
                ),
            }
            ctx.progress(f"live output: {transport} {label} done")
        for rt in rts.values():
            rt.close()
    return out
