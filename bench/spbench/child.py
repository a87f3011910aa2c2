"""Measurements that need a fresh process, so that peak RSS belongs to one
contender and one operation: seq output, editor operations, cold start and
the 256-session scale run. The parent passes a JSON spec as argv[1]; the
child prints one JSON object as its last stdout line.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

from . import procs


def main() -> None:
    spec = json.loads(sys.argv[1])
    kind = spec["kind"]
    if kind == "seq":
        out = _seq(spec)
    elif kind == "editor":
        from .editors import run_child

        out = run_child(spec)
    elif kind == "cold":
        out = _cold(spec)
    elif kind == "scale":
        from .scale import run_child as scale_child

        out = asyncio.run(scale_child(spec))
    elif kind == "remote":
        from .remote import run_child as remote_child

        out = asyncio.run(remote_child(spec))
    elif kind == "remote-channel":
        from .remote import run_channel

        out = run_channel(spec)
    else:
        raise SystemExit(f"unknown child kind {kind!r}")
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


def _seq(spec: dict[str, Any]) -> dict[str, Any]:
    from .shells import FACTORIES

    sh = FACTORIES[spec["contender"]](spec["cwd"])
    sh.run("true")
    before = procs.self_peak_rss()
    runtime_before = procs.rss(sh.pid) if sh.pid else None
    t = time.perf_counter()
    text = sh.run(spec["command"])
    elapsed = time.perf_counter() - t
    meta = getattr(getattr(sh, "last", None), "meta", None)
    output = text
    if meta is not None and meta.get("truncated"):
        # A cut result's last line names the spill file; the output ends before it.
        output = text.rsplit("\n[output truncated; ", 1)[0]
    out: dict[str, Any] = {
        "seconds": elapsed,
        "host_peak_before": before,
        "host_peak": procs.self_peak_rss(),
        "runtime_rss_before": runtime_before,
        "runtime_peak": procs.peak_rss(sh.pid) if sh.pid else None,
        "text_chars": len(text),
        "text_tail": output[-40:],
    }
    if meta is not None:
        out["meta"] = {k: meta.get(k) for k in ("exitCode", "truncated", "spillPath")}
        spill = meta.get("spillPath")
        out["spill_bytes"] = os.path.getsize(spill) if spill and os.path.exists(spill) else None
    sh.close()
    return out


def _cold(spec: dict[str, Any]) -> dict[str, Any]:
    name, cwd = spec["contender"], spec["cwd"]
    clock = time.perf_counter
    phases: dict[str, float] = {}
    t0 = clock()
    if name.startswith("shellport-"):
        import shellport

        t1 = clock()
        rt = shellport.Runtime(config={"profile": "persistent"}, transport=name.split("-", 1)[1])
        rt.__enter__()  # Runtime() is lazy: this is where the runtime starts
        t2 = clock()
        s = rt.session(cwd=cwd)
        r = s.call("bash", {"command": "true"})
        t3 = clock()
        ok = r.meta.get("exitCode") == 0 and not r.is_error
        phases = {"import": t1 - t0, "runtime": t2 - t1, "first_call": t3 - t2}
        rt.close()
    elif name == "floor":
        from .floor import RawPtyShell

        t1 = clock()
        sh = RawPtyShell(cwd)  # spawns bash and waits for its first marker
        out = sh.run("true")
        t3 = clock()
        ok = out == b""
        phases = {"import": t1 - t0, "runtime": 0.0, "first_call": t3 - t1}
        sh.close()
    elif name == "pexpect":
        from pexpect import replwrap

        t1 = clock()
        b = replwrap.bash()
        t2 = clock()
        ok = b.run_command("true") == ""
        t3 = clock()
        phases = {"import": t1 - t0, "runtime": t2 - t1, "first_call": t3 - t2}
        b.child.close(force=True)
    elif name == "swe-rex":
        from swerex.runtime.abstract import BashAction, CreateBashSessionRequest
        from swerex.runtime.local import LocalRuntime

        t1 = clock()
        loop = asyncio.new_event_loop()
        rt = LocalRuntime()
        loop.run_until_complete(rt.create_session(CreateBashSessionRequest()))
        t2 = clock()
        obs = loop.run_until_complete(rt.run_in_session(BashAction(command="true")))
        t3 = clock()
        ok = obs.exit_code == 0
        phases = {"import": t1 - t0, "runtime": t2 - t1, "first_call": t3 - t2}
        loop.run_until_complete(rt.close())
    else:
        raise SystemExit(f"unknown cold contender {name!r}")
    phases["total"] = sum(phases.values())
    return {"phases": phases, "ok": ok}
