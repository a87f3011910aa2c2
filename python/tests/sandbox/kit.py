"""Helpers the sandbox tests call: a confined session and a bash call on either profile."""

from __future__ import annotations

from pathlib import Path

import pytest

import shellport
from conftest import CONFIG

PROFILES = ["oneshot", "persistent"]


def open_runtime(transport: str, profile: str) -> shellport.Runtime:
    """A runtime of the profile, or a skip where the kernel cannot enforce a sandbox."""
    runtime = shellport.Runtime({**CONFIG, "profile": profile}, transport)
    if runtime.sandbox.get("backend") != "landlock" or not runtime.sandbox.get("seccomp"):
        runtime.close()
        pytest.skip(f"no Landlock and seccomp here: {runtime.sandbox.get('reason')}")
    return runtime


def confined(
    rt: shellport.Runtime, ws: Path, mode: str = "workspace-write", **extra: object
) -> shellport.Session:
    """A session confined to ws.

    The temporary directories stay read-only: pytest's own are under /tmp.
    """
    return rt.session(ws, sandbox={"mode": mode, "writableTmp": False, **extra})


def bash(s: shellport.Session, command: str, **extra: object) -> shellport.ToolResult:
    args: dict[str, object] = {"command": command, **extra}
    if s.runtime.profile == "oneshot":
        args["description"] = "Probe the sandbox"
    return s.call("bash", args)
