"""Issue 10: nothing a command starts outlives its session, its runtime or its host.

Every test starts processes that try to escape in every way a shell offers
(a new session with setsid, a double fork, nohup, disown, a set -m job, and
in the persistent shell a job that ignores SIGHUP), each a ``sleep`` with an
argument no other process on the machine has, and counts them in /proc.
Waits are bounded hang guards, never speed assertions.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import shellport
from conftest import CONFIG, binary_path, library_path, wait_until

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the supervisor is Linux's (see docs/TOOLS.md for macOS)",
)

KINDS = 5  # processes ESCAPES starts
_count = itertools.count()


def marker() -> str:
    """A sleep argument no other process has."""
    return f"{3600 + os.getpid() % 1000}.{os.getpid()}{next(_count):04d}"


def escapes(m: str) -> str:
    """Start one sleep per way to detach, wait until all run, print "started"."""
    return textwrap.dedent(f"""\
        setsid sleep {m} </dev/null >/dev/null 2>&1 &
        (sleep {m} </dev/null >/dev/null 2>&1 &)
        nohup sleep {m} </dev/null >/dev/null 2>&1 &
        sleep {m} </dev/null >/dev/null 2>&1 & disown
        set -m; sleep {m} </dev/null >/dev/null 2>&1 & set +m
        __n() {{
          local f a n=0
          for f in /proc/[0-9]*/cmdline; do
            mapfile -d '' -t a < "$f" 2>/dev/null
            [[ ${{a[0]}} == sleep && ${{a[1]}} == {m} ]] && n=$((n+1))
          done
          echo $n
        }}
        i=0; while [ "$(__n)" -lt {KINDS} ] && [ $i -lt 1000 ]; do sleep 0.02; i=$((i+1)); done
        echo started""")


def deaf(m: str) -> str:
    """A job that ignores SIGHUP."""
    return f"(trap '' HUP; exec sleep {m}) </dev/null >/dev/null 2>&1 &\n"


def procs(m: str) -> list[int]:
    """Live processes whose argument is m."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            args = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if m.encode() in args and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def wait_procs(m: str, n: int) -> None:
    wait_until(lambda: len(procs(m)) >= n, f"{n} processes with marker {m}", limit=60)


def wait_none(m: str, what: str) -> None:
    def none() -> bool:
        return not procs(m)

    try:
        wait_until(none, f"no process with marker {m} {what}", limit=60)
    finally:
        for pid in procs(m):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def m() -> Iterator[str]:
    value = marker()
    yield value
    for pid in procs(value):
        os.kill(pid, signal.SIGKILL)


def oneshot(transport: str) -> shellport.Runtime:
    return shellport.Runtime(CONFIG, transport)


def persistent(transport: str) -> shellport.Runtime:
    return shellport.Runtime({"profile": "persistent"}, transport)


def bash(s: shellport.Session, command: str, **extra: object) -> shellport.ToolResult:
    return s.call("bash", {"command": command, "description": "Try to escape", **extra})


# --- one-shot ----------------------------------------------------------------------


def test_oneshot_escapes_die_when_the_command_ends(transport: str, tmp_path: Path, m: str) -> None:
    with oneshot(transport) as rt, rt.session(tmp_path) as s:
        assert "started" in bash(s, escapes(m)).text
        assert procs(m) == []  # the call answers once everything is gone


def test_oneshot_escapes_die_at_the_timeout(transport: str, tmp_path: Path, m: str) -> None:
    with oneshot(transport) as rt, rt.session(tmp_path) as s:
        r = bash(s, escapes(m) + f"\nsleep {m}", timeoutMs=5000)
        assert "started" in r.text
        assert r.meta["timedOut"] is True
        assert procs(m) == []


def test_oneshot_escapes_die_with_bash_kill(transport: str, tmp_path: Path, m: str) -> None:
    with oneshot(transport) as rt, rt.session(tmp_path) as s:
        task = bash(s, escapes(m) + f"\nsleep {m}", run_in_background=True).meta["taskId"]
        wait_procs(m, KINDS + 1)
        assert s.call("bash_kill", {"task_id": task}).meta["killed"] is True
        assert procs(m) == []


def test_oneshot_escapes_die_with_the_session(transport: str, tmp_path: Path, m: str) -> None:
    with oneshot(transport) as rt:
        s = rt.session(tmp_path)
        bash(s, escapes(m) + f"\nsleep {m}", run_in_background=True)
        wait_procs(m, KINDS + 1)
        s.close()
        assert procs(m) == []


def test_oneshot_escapes_die_with_the_runtime(transport: str, tmp_path: Path, m: str) -> None:
    rt = oneshot(transport)
    s = rt.session(tmp_path)
    bash(s, escapes(m) + f"\nsleep {m}", run_in_background=True)
    in_flight = threading.Thread(
        target=lambda: _ignore_errors(bash, s, escapes(m + "1") + f"\nsleep {m}")
    )
    in_flight.start()
    wait_procs(m, KINDS + 2)
    rt.close()
    in_flight.join(60)
    wait_none(m, "after the runtime closed")
    wait_none(m + "1", "after the runtime closed")


def _ignore_errors(f: object, *args: object) -> None:
    with contextlib.suppress(shellport.ShellportError):
        f(*args)  # type: ignore[operator]


# --- persistent --------------------------------------------------------------------


def _start_in_shell(s: shellport.Session, m: str) -> None:
    assert "started" in s.call("bash", {"command": deaf(m) + escapes(m)}).text
    wait_procs(m, KINDS + 1)
    # A persistent shell's jobs keep running between calls: `(server &)` works.
    s.call("bash", {"command": "true"})
    assert len(procs(m)) == KINDS + 1


def test_persistent_jobs_die_with_the_session(transport: str, tmp_path: Path, m: str) -> None:
    with persistent(transport) as rt:
        s = rt.session(tmp_path)
        _start_in_shell(s, m)
        s.close()
        assert procs(m) == []


def test_persistent_jobs_die_with_the_runtime(transport: str, tmp_path: Path, m: str) -> None:
    rt = persistent(transport)
    _start_in_shell(rt.session(tmp_path), m)
    rt.close()
    wait_none(m, "after the runtime closed")


def test_persistent_jobs_die_with_a_reset(transport: str, tmp_path: Path, m: str) -> None:
    with shellport.Runtime(
        {"profile": "persistent", "tools": {"bash": {"timeoutMs": 3000}}}, transport
    ) as rt:
        s = rt.session(tmp_path)
        _start_in_shell(s, m)
        r = s.call("bash", {"command": f"sleep {m}"})
        assert r.meta["shellReset"] is True
        wait_none(m, "after the shell was reset")


# --- the host killed with SIGKILL ----------------------------------------------------

HOST = """
import sys, threading, time
import shellport
transport, lib, exe, work, m = sys.argv[1:6]
paths = {"library_path": lib} if transport == "library" else {"binary_path": exe}
one = shellport.Runtime({"testTools": True}, transport, **paths)
per = shellport.Runtime({"profile": "persistent"}, transport, **paths)
s1, s2 = one.session(work), per.session(work)
escapes, deaf = sys.stdin.read().split("\\0")
def bash(s, command, **extra):
    return s.call("bash", {"command": command, "description": "Escape", **extra})
bash(s1, escapes.replace("MARK", m + "1") + "\\nsleep " + m, run_in_background=True)
threading.Thread(target=bash, args=(s1, escapes.replace("MARK", m + "2") + "\\nsleep " + m),
                 kwargs={"timeoutMs": 600000}, daemon=True).start()
s2.call("bash", {"command": deaf.replace("MARK", m + "3") + escapes.replace("MARK", m + "3")})
print("ready", flush=True)
time.sleep(3600)
"""


def test_everything_dies_with_a_killed_host(transport: str, tmp_path: Path, m: str) -> None:
    """SIGKILL of a Python host, both transports, one-shot and persistent."""
    host = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOST,
            transport,
            library_path() if transport == "library" else "",
            binary_path(),
            str(tmp_path),
            m,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdin is not None
        assert host.stdout is not None
        host.stdin.write(escapes("MARK") + "\0" + deaf("MARK"))
        host.stdin.close()
        assert host.stdout.readline().strip() == "ready"
        for suffix, n in (("1", KINDS), ("2", KINDS), ("3", KINDS + 1)):
            wait_procs(m + suffix, n)
        wait_procs(m, 2)  # the two sleeps in the one-shot commands
        host.send_signal(signal.SIGKILL)
        host.wait(60)
        for suffix in ("", "1", "2", "3"):
            wait_none(m + suffix, f"after the {transport} host was killed")
    finally:
        host.kill()
        host.wait()
        if host.stdout is not None:
            host.stdout.close()
        for suffix in ("1", "2", "3"):
            for pid in procs(m + suffix):
                os.kill(pid, signal.SIGKILL)


# --- descriptors -------------------------------------------------------------------


def _inherited(listing: str) -> list[str]:
    """The fds in `ls -l /proc/self/fd` output, without ls's own listing fd."""
    fds = []
    for line in listing.splitlines():
        f = line.split()
        if (
            len(f) >= 3
            and f[-2] == "->"
            and not (f[-1].startswith("/proc/") and f[-1].endswith("/fd"))
        ):
            fds.append(f[-3])
    return fds


@pytest.mark.parametrize("profile", ["oneshot", "persistent"])
def test_commands_see_only_standard_descriptors(
    transport: str, tmp_path: Path, profile: str
) -> None:
    """Descriptors the host left inheritable never reach a command (the library leaked them)."""
    r, w = os.pipe()
    f = open(tmp_path / "open-in-the-host", "w")  # noqa: SIM115
    for fd in (r, w, f.fileno()):
        os.set_inheritable(fd, True)
    try:
        with shellport.Runtime({"profile": profile}, transport) as rt, rt.session(tmp_path) as s:
            args = {"command": "ls -l /proc/self/fd"}
            if profile == "oneshot":
                args["description"] = "List descriptors"
            out = s.call("bash", args).text
            assert _inherited(out) == ["0", "1", "2"], out
    finally:
        os.close(r)
        os.close(w)
        f.close()
