"""Run settings, peer status, progress lines and child processes."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Peer packages: PyPI name -> module to import.
PEER_MODULES = {
    "pexpect": "pexpect",
    "swe-rex": "swerex",
    "openhands-aci": "openhands_aci",
    "matplotlib": "matplotlib",
    "psutil": "psutil",
}


@dataclass
class Sizes:
    reps: int
    fast_calls: int  # round trips per repetition for sub-millisecond contenders
    slow_calls: int  # for contenders with fixed sleeps (pexpect defaults, SWE-ReX)
    seq_n: int
    seq_reps: int
    seq_peer_reps: int
    peer_timeout: float
    editor_bytes: int
    editor_reps: int
    cold_reps: int
    oneshot_calls: int
    scale_sessions: int
    scale_calls: int
    scale_bursts: int
    scale_reps: int
    live_sessions: int = 2048
    live_reps: int = 1
    remote_containers: int = 32
    remote_calls: int = 50
    remote_reps: int = 3
    remote_channel_calls: int = 300


FULL = Sizes(
    reps=7,
    fast_calls=200,
    slow_calls=10,
    seq_n=2_000_000,
    seq_reps=5,
    seq_peer_reps=2,
    peer_timeout=60.0,
    editor_bytes=35 * 1000 * 1000,
    # An edit of the 35 MB file ends in fsyncs whose time on this shared disk
    # varies widely (about 70 to 160 ms across one run's edits, either transport):
    # a median of 7 moved by 0.2x between two runs of the same code.
    editor_reps=11,
    cold_reps=5,
    oneshot_calls=60,
    scale_sessions=256,
    scale_calls=10,
    scale_bursts=2,
    scale_reps=2,
)
SMOKE = Sizes(
    reps=2,
    fast_calls=10,
    slow_calls=2,
    seq_n=20_000,
    seq_reps=1,
    seq_peer_reps=1,
    peer_timeout=20.0,
    editor_bytes=200_000,
    editor_reps=1,
    cold_reps=1,
    oneshot_calls=5,
    scale_sessions=4,
    scale_calls=3,
    scale_bursts=1,
    scale_reps=1,
    live_sessions=6,
    remote_containers=2,
    remote_calls=3,
    remote_reps=1,
    remote_channel_calls=10,
)


@dataclass
class Context:
    sizes: Sizes
    smoke: bool
    workdir: str
    peers: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[dict[str, str]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def progress(self, msg: str) -> None:
        sys.stderr.write(f"[bench {time.monotonic() - self.started:6.1f}s] {msg}\n")
        sys.stderr.flush()

    def problem(self, case: str, who: str, what: str) -> None:
        """Record something that went wrong; the report lists every one.

        A smoke run has no peers by design: their "not run" entries are
        recorded but not printed (the run says so once, at the end).
        """
        self.problems.append({"case": case, "contender": who, "problem": what})
        if self.smoke and what.startswith("not run:"):
            return
        self.progress(f"PROBLEM in {case} / {who}: {what}")

    def peer_ok(self, pypi_name: str | None) -> bool:
        return pypi_name is None or bool(self.peers.get(pypi_name, {}).get("importable"))

    def peer_reason(self, pypi_name: str) -> str:
        return str(self.peers.get(pypi_name, {}).get("reason", "not installed"))

    def child(self, spec: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Run one child measurement; return its JSON or {"error": ...}."""
        argv = [sys.executable, os.path.join(BENCH_DIR, "child.py"), json.dumps(spec)]
        try:
            p = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=self.workdir,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return {
                "error": f"did not finish within {timeout:g} s (killed)",
                "timeout": True,
            }
        if p.returncode != 0 or not p.stdout.strip():
            tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
            return {"error": f"exit {p.returncode}: " + " | ".join(tail)}
        return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def peer_status(status_file: str | None) -> dict[str, dict[str, Any]]:
    """What setup_venv.py recorded about each install, plus whether it imports here."""
    recorded: dict[str, Any] = {}
    if status_file and os.path.exists(status_file):
        with open(status_file) as f:
            recorded = json.load(f)
    out: dict[str, dict[str, Any]] = {}
    for name, module in PEER_MODULES.items():
        row: dict[str, Any] = {"install": recorded.get(name)}
        # Found, not imported: some peers configure logging on import, and a
        # peer that then fails to run is reported by the case that runs it.
        try:
            if importlib.util.find_spec(module) is None:
                raise ImportError(f"no module named {module!r}")
            from importlib.metadata import version

            row.update(importable=True, version=version(name))
        except Exception as exc:  # not found means the peer cannot run
            inst = recorded.get(name)
            if inst and not inst.get("ok"):
                reason = f"could not be installed: {inst.get('error')}"
            elif not recorded:
                reason = "not installed in this environment (smoke runs use the main .venv)"
            else:
                reason = f"installed but does not import: {exc!r}"
            row.update(importable=False, reason=reason)
        out[name] = row
    return out
