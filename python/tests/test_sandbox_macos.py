"""Issue 12 on macOS: the Seatbelt backend (sandbox-exec), both transports and profiles.

Linux's own tests (sandbox/test_modes.py) cover Landlock and seccomp in depth;
these check that the generated profile lets a shell, its terminal and the
editor work and holds writes and the network. The macOS CI job runs them.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import shellport
from conftest import CONFIG

pytestmark = pytest.mark.skipif(sys.platform != "darwin", reason="the Seatbelt backend is macOS's")


@pytest.fixture(params=["oneshot", "persistent"])
def rt(transport: str, request: pytest.FixtureRequest) -> Iterator[shellport.Runtime]:
    runtime = shellport.Runtime({**CONFIG, "profile": request.param}, transport)
    try:
        if runtime.sandbox.get("backend") != "seatbelt":
            pytest.fail(f"no Seatbelt backend on macOS: {runtime.sandbox}")
        yield runtime
    finally:
        runtime.close()


def bash(s: shellport.Session, command: str) -> shellport.ToolResult:
    args: dict[str, object] = {"command": command}
    if s.runtime.profile == "oneshot":
        args["description"] = "Probe the sandbox"
    return s.call("bash", args)


def test_seatbelt_holds_writes_network_and_the_editor(
    rt: shellport.Runtime, tmp_path: Path
) -> None:
    ws, out = tmp_path / "ws", tmp_path / "out"
    ws.mkdir()
    out.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    try:
        with rt.session(ws, sandbox={"mode": "workspace-write", "writableTmp": False}) as s:
            r = bash(
                s,
                f"echo in > {ws}/in && echo inside-ok; echo x > {out}/f; echo rc=$?; "
                f"exec 3<>/dev/tcp/127.0.0.1/{port}; echo net=$?; tty >/dev/null; echo tty=$?",
            )
            assert "inside-ok" in r.text
            assert "rc=1" in r.text
            assert "net=1" in r.text
            assert not r.is_error
            assert r.meta["sandbox"]["backend"] == "seatbelt"
            assert not (out / "f").exists()
            assert (ws / "in").read_text() == "in\n"
            e = s.call(
                "str_replace_editor",
                {"command": "create", "path": str(out / "e.txt"), "file_text": "x"},
            )
            assert e.is_error
            assert "workspace-write" in e.text
            assert not (out / "e.txt").exists()
    finally:
        listener.close()
