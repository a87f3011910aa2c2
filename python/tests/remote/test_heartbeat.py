"""The heartbeat over a channel that never delivers end of input (issue 15).

kubectl_standin.py relays like `kubectl exec -i` without a cluster: the runtime's
stdin stays open after the client ends, and the runtime is not killed with the
client. Without a heartbeat the runtime of a dead harness would therefore run,
and keep its commands running, forever (the first test shows the relay does
that); with one, it kills everything and exits once the pings stop.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import shellport
from shellport import _native

from .sandboxes import WAIT, alive, describe, wait_until, with_token

STANDIN = str(Path(__file__).with_name("kubectl_standin.py"))
HEARTBEAT = 2.0

HARNESS = """
import json, sys
import shellport
p = json.loads(sys.argv[1])
cmd = shellport.remote.kubectl("pod-1", "main", "rollouts", path=p["exe"],
                               heartbeat=p["heartbeat"], cli=[sys.executable, p["standin"]])
rt = shellport.Runtime({"profile": "persistent"}, cmd)
s = rt.session("/", env={"SP_TOKEN": p["token"]})
s.call("bash", {"command": "sleep 1000 & sleep 1001 & true"})
print("ready", flush=True)
s.call("bash", {"command": "sleep 1002"})
"""


@pytest.fixture
def exe() -> str:
    """The executable the stand-in runs (on this machine, as the pod would)."""
    return _native.find_binary(None, _native.read_settings(True)).path


@pytest.fixture
def pidfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the stand-in writes the runtime's pid."""
    path = tmp_path / "runtime.pid"
    monkeypatch.setenv("STANDIN_PIDFILE", str(path))
    return path


def runtime_pid(pidfile: Path) -> int:
    wait_until(pidfile.exists, "the stand-in to start the runtime")
    return int(pidfile.read_text())


@pytest.fixture
def harness(exe: str, pidfile: Path) -> Iterator[Any]:
    """Start a harness process that opens a runtime through the stand-in and
    leaves a call running; return (process, token, runtime pid)."""
    procs: list[subprocess.Popen[str]] = []

    def start(heartbeat: float | None) -> tuple[subprocess.Popen[str], str, int]:
        token = f"tok{uuid.uuid4().hex}"
        params = {"exe": exe, "heartbeat": heartbeat, "standin": STANDIN, "token": token}
        proc = subprocess.Popen(
            [sys.executable, "-c", HARNESS, json.dumps(params)],
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        procs.append(proc)
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], WAIT)
        assert ready, f"the harness did not get ready within {WAIT:g} s"
        assert proc.stdout.readline().strip() == "ready"
        wait_until(lambda: len(with_token(token)) >= 4, "the shell and three sleeps")
        return proc, token, runtime_pid(pidfile)

    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(30)
        if p.stdout:
            p.stdout.close()


def test_relay_keeps_a_runtime_without_heartbeat_alive(harness: Any) -> None:
    """The premise: through this channel, the harness's death reaches nobody."""
    proc, token, pid = harness(None)
    proc.kill()
    proc.wait(30)
    time.sleep(3 * HEARTBEAT)  # long enough for any heartbeat to have fired
    try:
        assert alive(pid), "the runtime ended without a heartbeat: the relay passed the end on"
        assert len(with_token(token)) >= 4
    finally:
        os.kill(pid, signal.SIGTERM)  # shuts down and kills everything
        wait_until(lambda: not alive(pid), "the runtime to end on SIGTERM")
        wait_until(lambda: not with_token(token), "its commands to die")


def test_heartbeat_ends_the_runtime_of_a_dead_harness(harness: Any) -> None:
    proc, token, pid = harness(HEARTBEAT)
    proc.kill()
    proc.wait(30)
    wait_until(lambda: not alive(pid), "the runtime to end when the pings stopped")
    wait_until(lambda: not with_token(token), f"its commands to die: {describe(with_token(token))}")


def test_pings_keep_an_idle_runtime_alive(exe: str, pidfile: Path) -> None:
    cmd = shellport.remote.kubectl(
        "pod-1", path=exe, heartbeat=HEARTBEAT, cli=[sys.executable, STANDIN]
    )
    assert "--heartbeat" in cmd.argv
    token = f"tok{uuid.uuid4().hex}"
    with shellport.Runtime({"profile": "persistent"}, cmd) as rt:
        assert rt.transport_name == "kubectl"
        with rt.session("/", env={"SP_TOKEN": token}) as s:
            s.call("bash", {"command": "export IDLE=survived"})
            pid = runtime_pid(pidfile)
            time.sleep(3 * HEARTBEAT)  # idle: only pings cross the channel
            assert s.call("bash", {"command": "echo $IDLE"}).text.strip() == "survived"
    # close() asks the runtime to exit: the end of input would never arrive here.
    wait_until(lambda: not alive(pid), "the runtime to exit on close")
    assert not with_token(token)


def test_killed_channel_fails_pending_calls_and_the_runtime_ends(exe: str, pidfile: Path) -> None:
    cmd = shellport.remote.kubectl(
        "pod-1", path=exe, heartbeat=HEARTBEAT, cli=[sys.executable, STANDIN]
    )
    token = f"tok{uuid.uuid4().hex}"
    rt = shellport.Runtime({"profile": "persistent"}, cmd)
    sessions = [rt.session("/", env={"SP_TOKEN": token}) for _ in range(4)]
    pid = runtime_pid(pidfile)
    errors: list[BaseException] = []

    def call(s: shellport.Session) -> None:
        try:
            s.call("bash", {"command": "sleep 1000"})
        except BaseException as exc:  # what the test is about
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(s,)) for s in sessions[:2]]
    for t in threads:
        t.start()

    async def async_calls() -> list[Any]:
        tasks = [
            asyncio.ensure_future(s.acall("bash", {"command": "sleep 1000"})) for s in sessions[2:]
        ]
        while len(with_token(token)) < 8:
            await asyncio.sleep(0.02)
        channel = rt._connection().transport
        assert isinstance(channel, shellport.StdioTransport)
        os.kill(channel.pid, signal.SIGKILL)
        return await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 60)

    results = asyncio.run(asyncio.wait_for(async_calls(), 120))
    for t in threads:
        t.join(60)
        assert not t.is_alive()
    everything = errors + list(results)
    assert len(everything) == 4
    assert all(isinstance(e, shellport.ProcessExited) for e in everything), everything
    assert all(e.returncode == -signal.SIGKILL for e in everything)
    rt.close()
    wait_until(lambda: not alive(pid), "the runtime to end by its heartbeat")
    wait_until(lambda: not with_token(token), "its commands to die")
