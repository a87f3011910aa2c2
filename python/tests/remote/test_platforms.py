"""The same checks over every remote platform (issue 15): podman exec -i into a
container built here, ssh -T to a local sshd, unshare --user --map-root-user --net.

State across calls, the editor, a timeout, cancellation, everything killed on
close, and a dropped channel failing every pending call with ProcessExited.
Processes are counted from this machine's /proc: by a token in the session's
environment, and by what runs in the sandbox besides its own processes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import uuid
from typing import Any

import pytest

import shellport

from .platforms import Platform, transport_pid
from .sandboxes import describe, wait_until, with_token

PERSISTENT = {"profile": "persistent"}


def token() -> str:
    return f"tok{uuid.uuid4().hex}"


def test_state_across_calls(platform: Platform) -> None:
    with shellport.Runtime(PERSISTENT, platform.command()) as rt:
        assert rt.transport_name == platform.name
        assert rt.version == shellport.__version__
        with rt.session(platform.cwd) as s:
            s.call("bash", {"command": "cd / && export SP_STATE=kept && f() { echo fn; }"})
            r = s.call("bash", {"command": "pwd; echo $SP_STATE; f"})
            assert r.text.split() == ["/", "kept", "fn"], r.text
            assert not r.is_error


def test_editor(platform: Platform) -> None:
    path = f"{platform.cwd}/edit-{uuid.uuid4().hex[:8]}.py"
    with shellport.Runtime(PERSISTENT, platform.command()) as rt, rt.session(platform.cwd) as s:
        r = s.call(
            "str_replace_editor",
            {"command": "create", "path": path, "file_text": "retries = 3\nname = 'x'\n"},
        )
        assert not r.is_error, r.text
        r = s.call(
            "str_replace_editor",
            {
                "command": "str_replace",
                "path": path,
                "old_str": "retries = 3",
                "new_str": "retries = 5",
            },
        )
        assert not r.is_error, r.text
        r = s.call(
            "str_replace_editor",
            {"command": "str_replace", "path": path, "old_str": "absent", "new_str": "x"},
        )
        assert r.is_error
        assert "absent" in r.text
        assert s.call("bash", {"command": f"cat {path}"}).text == "retries = 5\nname = 'x'\n"
        r = s.call("str_replace_editor", {"command": "view", "path": path})
        assert "retries = 5" in r.text
        s.call("bash", {"command": f"rm {path}"})


def test_timeout(platform: Platform) -> None:
    tok = token()
    config = {"profile": "persistent", "tools": {"bash": {"timeoutMs": 1500}}}
    rt = shellport.Runtime(config, platform.command())
    with rt, rt.session(platform.cwd, env={"SP_TOKEN": tok}) as s:
        r = s.call("bash", {"command": "echo started; sleep 1000"})
        assert r.meta["timedOut"] is True
        assert "started" in r.text
        assert "\n[timed out after 1.5 seconds]\n" in r.text
        wait_until(lambda: not with_token(tok), "the timed-out command to be killed")
        assert s.call("bash", {"command": "echo next"}).text.strip() == "next"


async def test_cancel(platform: Platform) -> None:
    tok = token()
    async with shellport.Runtime(PERSISTENT, platform.command()) as rt:
        s = rt.session(platform.cwd, env={"SP_TOKEN": tok})
        task = asyncio.ensure_future(s.acall("bash", {"command": "sleep 1000"}))
        await _until(lambda: len(with_token(tok)) >= 2, "the shell and its sleep to run")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await _until(lambda: not with_token(tok), "the cancelled command and its shell to die")
        r = await s.acall("bash", {"command": "echo after"})
        # The result says the shell was reset (issue 11), then runs.
        assert r.text.endswith("\nafter\n"), r.text
        assert "reset the shell" in r.text, r.text
        await s.aclose()


@pytest.mark.parametrize("profile", ["persistent", "oneshot"])
def test_close_kills_everything(platform: Platform, profile: str) -> None:
    tok = token()
    rt = shellport.Runtime({"profile": profile}, platform.command())
    try:
        s = rt.session(platform.cwd, env={"SP_TOKEN": tok})
        if profile == "persistent":
            # Background jobs, a job the shell forgot, one in a subshell, one
            # in a session of its own (issue 10: setsid escapes nothing).
            escapes = "sleep 1000 & sleep 1001 & disown; (sleep 1002 &); setsid sleep 1003 & true"
            s.call("bash", {"command": escapes})
            want = 5  # the shell and four sleeps
        else:
            # Two tasks, the second with a process in a session of its own.
            for command in ("sleep 1000", "setsid sleep 1001 & sleep 1002"):
                r = s.call(
                    "bash",
                    {"command": command, "description": "wait", "run_in_background": True},
                )
                assert "bash-" in r.text, r.text
            want = 3
        wait_until(lambda: len(with_token(tok)) >= want, f"{want} processes to run")
        left = platform.watch(rt)
        assert left(), "the runtime itself should run in the sandbox"
    finally:
        rt.close()
    wait_until(lambda: not with_token(tok), "everything the session started to die")
    wait_until(lambda: not left(), "the sandbox to be empty again")


@pytest.mark.parametrize("platform", ["podman", "ssh"], indirect=True)
def test_dropped_channel_fails_every_pending_call(
    platform: Platform, request: pytest.FixtureRequest
) -> None:
    """Killing the channel (not the runtime) surfaces at once as ProcessExited, for
    every pending call, sync and async, with the channel's stderr; the runtime
    left behind ends by its heartbeat, killing everything."""
    channel = platform.name
    sshd = request.getfixturevalue("sshd") if channel == "ssh" else None
    tok = token()
    rt = shellport.Runtime(PERSISTENT, platform.command(heartbeat=2.0))
    sessions = [rt.session(platform.cwd, env={"SP_TOKEN": tok}) for _ in range(4)]
    left = platform.watch(rt)
    errors: list[BaseException] = []

    def sync_call(s: shellport.Session) -> None:
        try:
            s.call("bash", {"command": "sleep 1000"})
        except BaseException as exc:  # what the test is about
            errors.append(exc)

    async def async_calls() -> list[Any]:
        calls = [s.acall("bash", {"command": "sleep 1000"}) for s in sessions[2:]]
        return await asyncio.gather(*calls, return_exceptions=True)

    threads = [threading.Thread(target=sync_call, args=(s,)) for s in sessions[:2]]
    for t in threads:
        t.start()
    loop = asyncio.new_event_loop()
    try:
        pending = loop.create_task(async_calls())

        async def drop_when_running() -> None:
            await _until(lambda: len(with_token(tok)) >= 8, "four shells and four sleeps")
            if channel == "ssh":
                # The server side goes, as with a dead network: ssh says so.
                assert sshd.drop_connections() >= 1
            else:
                os.kill(transport_pid(rt), signal.SIGKILL)  # podman exec, without a word

        loop.run_until_complete(drop_when_running())
        results = loop.run_until_complete(asyncio.wait_for(pending, 60))
    finally:
        loop.close()
    for t in threads:
        t.join(60)
        assert not t.is_alive()
    everything = errors + list(results)
    assert len(everything) == 4
    for exc in everything:
        assert isinstance(exc, shellport.ProcessExited), repr(exc)
    if channel == "ssh":
        assert all("closed by remote host" in e.stderr for e in everything), everything[0]
        assert all("closed by remote host" in str(e) for e in everything), everything[0]
    else:
        assert all(e.returncode == -signal.SIGKILL for e in everything), everything[0]
    with pytest.raises(shellport.ProcessExited):
        sessions[0].call("bash", {"command": "true"})
    rt.close()
    wait_until(lambda: not with_token(tok), "the orphaned runtime to kill its commands")
    wait_until(lambda: not left(), f"the sandbox to be empty: {describe(left())}")


async def _until(predicate: Any, what: str, limit: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        await asyncio.sleep(0.02)
