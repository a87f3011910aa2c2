"""`shellport mcp` driven by the Python `mcp` client from PyPI (issue 14): both
protocol eras, persistent state, the editor, a failing command, invalid
arguments, cancellation, progress, notices, and nothing left behind."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.client.client import Client

import shellport
from conftest import alive, binary_path, descendants

#: mode of the Python client -> the protocol version it must end up speaking.
ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}
HANG_GUARD = 30.0


@asynccontextmanager
async def connect(cwd: Path, mode: str, *args: str, **client: Any) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=binary_path(), args=["mcp", "--cwd", str(cwd), *args])
    async with Client(params, mode=mode, **client) as c:
        assert c.protocol_version == ERAS[mode]
        yield c


def dumped(result: Any) -> dict[str, Any]:
    out: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    return out


async def wait_for(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting: {what}")
        await anyio.sleep(0.01)


@pytest.mark.parametrize("mode", list(ERAS))
async def test_session(tmp_path: Path, mode: str) -> None:
    """Initialize, list tools, persistent bash, the editor, a failure, bad arguments."""
    async with connect(tmp_path, mode, "--profile", "persistent") as c:
        assert c.server_info is not None
        assert c.server_info.name == "shellport"
        listed = {t.name: t for t in (await c.list_tools()).tools}
        with shellport.Runtime({"profile": "persistent"}) as rt:
            ours = rt.tools(format="mcp")
        assert sorted(listed) == sorted(t["name"] for t in ours)
        for t in ours:
            assert listed[t["name"]].description == t["description"]
            assert listed[t["name"]].input_schema == t["inputSchema"]
        annotations = listed["bash"].annotations
        assert annotations is not None
        assert annotations.destructive_hint

        r = await c.call_tool("bash", {"command": "mkdir src && cd src && export MODE=" + mode})
        assert (r.is_error, r.content[0].text) == (False, "[no output]")
        r = await c.call_tool("bash", {"command": "pwd; echo $MODE; false"})
        assert r.content[0].text == f"{tmp_path}/src\n{mode}\n[exit code: 1]"
        assert r.is_error is False
        assert r.structured_content is not None
        assert r.structured_content["exitCode"] == 1
        assert dumped(r)["_meta"]["presentation"]["status"] == "failed"

        path = f"{tmp_path}/src/app.py"
        r = await c.call_tool(
            "str_replace_editor", {"command": "create", "path": path, "file_text": "x = 1\n"}
        )
        assert not r.is_error
        r = await c.call_tool("str_replace_editor", {"command": "view", "path": path})
        assert r.content[0].text == "     1\tx = 1"
        assert dumped(r)["_meta"]["presentation"]["title"] == f"Read {path}"

        r = await c.call_tool("str_replace_editor", {"command": "view", "path": "app.py"})
        assert r.is_error
        assert "is not absolute" in r.content[0].text
        r = await c.call_tool("bash", {"command": ["not", "a", "string"]})
        assert r.is_error
        assert '"command" must be a string' in r.content[0].text


@pytest.mark.parametrize("mode", list(ERAS))
async def test_cancel_kills_the_command(tmp_path: Path, mode: str) -> None:
    """A cancelled call's process is gone soon after, and the shell was reset."""
    pid_file = tmp_path / "pid"
    async with connect(tmp_path, mode, "--profile", "persistent") as c:
        await c.call_tool("bash", {"command": "export KEPT=yes"})
        scope = anyio.CancelScope()

        async def sleeper() -> None:
            with scope:
                await c.call_tool(
                    "bash", {"command": f"bash -c 'echo $$ > {pid_file}; exec sleep 600'"}
                )

        async with anyio.create_task_group() as tg:
            tg.start_soon(sleeper)
            await wait_for(
                lambda: pid_file.exists() and pid_file.read_text().endswith("\n"), "the pid"
            )
            pid = int(pid_file.read_text())
            assert alive(pid)
            scope.cancel()
        cancelled_at = time.monotonic()
        await wait_for(lambda: not alive(pid), "the cancelled command to die")
        print(f"cancelled command gone after {time.monotonic() - cancelled_at:.3f}s ({mode})")
        r = await c.call_tool("bash", {"command": "echo ${KEPT:-reset}"})
        # The result says the shell was reset (issue 11), then shows it.
        text = r.content[0].text
        assert text.endswith("\nreset\n"), text
        assert "reset the shell" in text, text


@pytest.mark.parametrize("mode", list(ERAS))
async def test_progress(tmp_path: Path, mode: str) -> None:
    """A call with a progress callback gets elapsed-time progress while it runs."""
    gate = tmp_path / "gate"
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))
        gate.touch()  # the command ends once a notification has arrived

    async with connect(tmp_path, mode, "--profile", "persistent") as c:
        r = await c.call_tool(
            "bash",
            {"command": f"until [ -e {gate} ]; do sleep 0.05; done; echo done"},
            progress_callback=on_progress,
        )
    assert r.content[0].text == "done\n"
    assert seen, "no progress notification"
    assert all(m is not None and m.startswith("running for ") for _, m in seen)
    assert [p for p, _ in seen] == sorted({p for p, _ in seen})


@pytest.mark.parametrize("mode", list(ERAS))
async def test_notices_as_log_messages(tmp_path: Path, mode: str) -> None:
    """A background task's completion notice reaches the client as a log message."""
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async with connect(tmp_path, mode, logging_callback=on_log, log_level="info") as c:
        if mode == "legacy":
            await c.set_logging_level("info")
        r = await c.call_tool(
            "bash", {"command": "echo hi", "description": "Say hi", "run_in_background": True}
        )
        assert "bash-1" in r.content[0].text

        async def arrived() -> bool:
            # The stateless era carries notices on the next request that asks for logs.
            await c.call_tool("bash_output", {"task_id": "bash-1"})
            return bool(logs)

        deadline = time.monotonic() + HANG_GUARD
        while not await arrived():
            assert time.monotonic() < deadline, "no notice"
            await anyio.sleep(0.05)
    assert any("Background task bash-1 finished" in str(d) for d in logs), logs


async def test_nothing_outlives_the_client(tmp_path: Path) -> None:
    """The client leaving kills the server and every process the session started."""
    me = os.getpid()
    async with connect(tmp_path, "legacy", "--profile", "persistent") as c:
        await c.call_tool("bash", {"command": "sleep 600 & sleep 600 &"})
        r = await c.call_tool("bash", {"command": "echo started"})
        assert not r.is_error
        running = descendants(me)
        assert len(running) >= 4  # shellport mcp, the shell, two sleeps
    await wait_for(lambda: not any(alive(p) for p in running), "every process to die")
    assert [p for p in descendants(me) if p in running] == []
