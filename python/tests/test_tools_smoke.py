"""The real tools through the Python API, on both transports (smoke level only;
each tool's own tests live beside it in Go)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import shellport
from conftest import wait_until


@pytest.fixture
def real(transport: str) -> shellport.Runtime:
    rt = shellport.Runtime(transport=transport)
    # Every build mounts the tools: a missing one fails, it is never skipped (issue 18).
    assert "bash" in rt.tool_names, rt.tool_names
    return rt


def test_bash_exit_status_is_a_result(real: shellport.Runtime, tmp_path: Path) -> None:
    with real, real.session(tmp_path) as s:
        r = s.call("bash", {"command": "pwd; echo oops >&2; exit 3", "description": "Fail"})
        assert r.is_error is False
        assert str(tmp_path) in r.text
        assert "oops" in r.text
        assert r.meta["exitCode"] == 3


def test_background_task_notice(real: shellport.Runtime, tmp_path: Path) -> None:
    with real, real.session(tmp_path) as s:
        args = {"command": "echo bg", "description": "Background", "run_in_background": True}
        r = s.call("bash", args)
        assert r.meta.get("taskId")
        notices: list[str] = []
        wait_until(lambda: bool(notices.extend(s.notices()) or notices), "the task's notice")
        assert r.meta["taskId"] in notices[0]


def test_editor_create_and_view(real: shellport.Runtime, tmp_path: Path) -> None:
    path = str(tmp_path / "hello.py")
    with real, real.session(tmp_path) as s:
        created = s.call(
            "str_replace_editor", {"command": "create", "path": path, "file_text": "print('hi')\n"}
        )
        assert created.is_error is False
        assert Path(path).read_text() == "print('hi')\n"
        view = s.call("str_replace_editor", {"command": "view", "path": path})
        assert "print('hi')" in view.text


def test_exit_without_close_kills_what_tools_started(transport: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = textwrap.dedent(
        f"""
        import shellport, time
        rt = shellport.Runtime(transport={transport!r})
        s = rt.session({str(tmp_path)!r})
        s.call("bash", {{"command": "echo $$ > pid.tmp; mv pid.tmp pid; exec sleep 600",
                         "description": "Sleep", "run_in_background": True}})
        while True:
            try:
                if open("pid").read().strip():
                    break
            except OSError:
                pass
            time.sleep(0.01)
        # no close(): the interpreter exits with the runtime open
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, timeout=60, check=False)
    assert done.returncode == 0
    pid = int(pidfile.read_text())

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    try:
        wait_until(gone, f"the background sleep (pid {pid}) to be killed")
    finally:
        if not gone():
            os.kill(pid, 9)
