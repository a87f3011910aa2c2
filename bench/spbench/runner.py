"""Run every case in order, then write the JSON (and, if asked, the report)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

from . import bars, cases_child, cases_live, cases_sandbox, cases_shell, remote
from .context import FULL, SMOKE, Context, peer_status

CASES: list[tuple[str, str, Callable[[Context], dict[str, Any]]]] = [
    (
        "persistent_true",
        "persistent bash `true` round trip",
        cases_shell.persistent_rtt,
    ),
    ("seq_output", "persistent bash `seq 1 2000000`", cases_shell.seq_output),
    ("oneshot_true", "one-shot bash `true`", cases_shell.oneshot),
    ("editor", "str_replace_editor on a large file", cases_child.editor),
    ("cold_start", "cold start", cases_child.cold_start),
    ("scale", "many live sessions at once", cases_child.scale),
    ("live_sessions", "thousands of live persistent sessions", cases_child.live_sessions),
    ("transport", "transport overhead per call", cases_shell.transport),
    ("live_output", "bash calls with and without live output", cases_live.live_output),
    ("sandbox", "sandboxed against unsandboxed sessions", cases_sandbox.sandbox),
    ("remote", "many containers from one harness", remote.remote),
]


def _host() -> dict[str, Any]:
    import shellport

    bash = subprocess.run(["bash", "--version"], capture_output=True, text=True).stdout
    cpu = ""
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")),
                "",
            )
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "bash": bash.splitlines()[0] if bash else None,
        "shellport": shellport.__version__,
        "loadavg_start": list(os.getloadavg()),
        "bin_sh": os.path.realpath("/bin/sh"),
    }


def _snapshot_native(workdir: str) -> dict[str, Any]:
    """Copy the native files the run starts with and point shellport at the copies.

    Other builds in the same tree (`make native`, `make clean`) must not swap
    or remove the library, the executable and the spawn helper halfway
    through a run; every case and child then measures the same build.
    Overrides already set by the user are kept.
    """
    import hashlib

    import shellport

    src = os.path.join(os.path.dirname(shellport.__file__), "_native")
    dst = os.path.join(workdir, "native")
    os.makedirs(dst, exist_ok=True)
    out: dict[str, Any] = {}
    for var, names in (
        ("SHELLPORT_LIBRARY_PATH", ("libshellport.so", "libshellport.dylib")),
        ("SHELLPORT_BINARY_PATH", ("shellport",)),
        ("SHELLPORT_SPAWN_HELPER", ("shellport-spawn-helper",)),
    ):
        if os.environ.get(var):
            out[var] = os.environ[var]
            continue
        for name in names:
            path = os.path.join(src, name)
            if os.path.exists(path):
                copy = os.path.join(dst, name)
                shutil.copy2(path, copy)
                os.environ[var] = copy
                with open(copy, "rb") as f:
                    out[name] = hashlib.sha256(f.read()).hexdigest()[:16]
    # The persistent shell's turn builtin is found beside the helper in use
    # (Linux): without a copy beside the copied helper every shell would
    # run its loop as shell commands.
    turn = os.path.join(src, "shellport-bash-turn.so")
    helper = os.environ.get("SHELLPORT_SPAWN_HELPER", "")
    if "SHELLPORT_SPAWN_HELPER" not in out and os.path.exists(turn) and helper.startswith(dst):
        shutil.copy2(turn, os.path.join(dst, "shellport-bash-turn.so"))
        with open(turn, "rb") as f:
            out["shellport-bash-turn.so"] = hashlib.sha256(f.read()).hexdigest()[:16]
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="shellport benchmark against its peers")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, a few seconds")
    ap.add_argument("--out", help="directory for <date>.json (required unless --report-only)")
    ap.add_argument("--docs", help="directory for BENCHMARKS.md and benchmarks.png")
    ap.add_argument("--peers", help="peer install status written by setup_venv.py")
    ap.add_argument("--only", help="comma-separated case names (for development)")
    ap.add_argument(
        "--report-only",
        metavar="JSON",
        help="only rewrite the report and plot from an earlier run's JSON",
    )
    args = ap.parse_args(argv)
    if args.report_only:
        from . import report

        with open(args.report_only) as f:
            earlier = json.load(f)
        print(report.write(earlier, args.docs or "docs", json_path=args.report_only))
        return 0
    if not args.out:
        ap.error("--out is required")
    workdir = tempfile.mkdtemp(prefix="shellport-bench-")
    ctx = Context(sizes=SMOKE if args.smoke else FULL, smoke=args.smoke, workdir=workdir)
    t0 = time.time()
    ctx.progress("checking peers")
    ctx.peers = peer_status(args.peers)
    for name, row in ctx.peers.items():
        if args.smoke and not row.get("importable"):
            continue  # expected: a smoke run uses the main .venv (said once below)
        state = row.get("version") if row.get("importable") else row.get("reason")
        ctx.progress(f"  {name}: {state}")
    native = _snapshot_native(workdir)
    results: dict[str, Any] = {
        "host": _host(),
        "smoke": args.smoke,
        "sizes": vars(ctx.sizes),
        "native": native,
        "peers": ctx.peers,
        "cases": {},
    }
    only = set(args.only.split(",")) if args.only else None
    try:
        for i, (key, title, fn) in enumerate(CASES, 1):
            if only and key not in only:
                continue
            ctx.progress(f"case {i}/{len(CASES)}: {title}")
            try:
                results["cases"][key] = fn(ctx)
            except Exception as exc:
                import traceback

                ctx.problem(key, "harness", f"case crashed: {exc!r}")
                traceback.print_exc()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    results["host"]["loadavg_end"] = list(os.getloadavg())
    results["seconds"] = time.time() - t0
    results["problems"] = ctx.problems
    t_make = os.environ.get("BENCH_T0")
    if t_make:
        results["make_seconds"] = time.time() - float(t_make)
    results["bars"] = bars.evaluate(results)
    if args.smoke:
        # Tiny sizes say nothing about the targets: computed, never judged.
        for b in results["bars"]:
            b["status"], b["why"] = "NOT JUDGED", "a smoke run; targets are judged by make bench"
    stamp = datetime.datetime.now().strftime("%Y-%m-%d")
    results["date"] = datetime.datetime.now().isoformat(timespec="seconds")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{stamp}.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    ctx.progress(f"wrote {path}")
    if args.docs:
        from . import report

        md, png = report.write(results, args.docs, json_path=path)
        ctx.progress(f"wrote {md}" + (f" and {png}" if png else " (no plot: matplotlib missing)"))
    if args.smoke:
        skipped = sum(1 for p in ctx.problems if p["problem"].startswith("not run:"))
        ctx.progress(
            f"smoke run: {len(results['bars'])} targets measured at tiny sizes and not judged "
            f"(make bench judges them); {skipped} peer measurements not run, as expected "
            "without peers"
        )
    else:
        for b in results["bars"]:
            ctx.progress(f"  {b['status']:7} {b['target']}: {b['measured']}")
    ctx.progress(f"done in {results['seconds']:.0f} s")
    crashed = [p for p in ctx.problems if p["contender"] == "harness"]
    if args.smoke:
        # The smoke run guards the harness and shellport's own behaviour;
        # peers are absent there by design.
        crashed += [p for p in ctx.problems if not p["problem"].startswith("not run:")]
    for p in crashed:
        ctx.progress(f"FAILED: {p['case']} / {p['contender']}: {p['problem']}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
