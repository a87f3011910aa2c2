"""Persistent shells behind one interface: run(command) -> output text.

Each contender is built the way a harness would use it: shellport through
its Python API (both transports), the raw-PTY floor, pexpect's own bash
REPL wrapper (as shipped, and with its 50 ms send delay turned off), and
SWE-ReX's local bash session.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Callable

from .floor import RawPtyShell


class Shell:
    """A named persistent shell; subclasses fill in run and close."""

    name = ""
    pid: int | None = None  # the process whose memory counts, if not this one

    def run(self, command: str) -> str:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class ShellportShell(Shell):
    def __init__(self, transport: str, cwd: str, use_async: bool = False) -> None:
        import shellport

        self.name = f"shellport-{transport}" + ("-acall" if use_async else "")
        self._rt = shellport.Runtime(config={"profile": "persistent"}, transport=transport)
        self._s = self._rt.session(cwd=cwd)
        self._loop = asyncio.new_event_loop() if use_async else None
        if transport == "process":
            from .procs import children_named

            pids = children_named(os.getpid(), "shellport")
            self.pid = max(pids) if pids else None
        self.last: Any = None

    def run(self, command: str) -> str:
        args = {"command": command}
        if self._loop is not None:
            r = self._loop.run_until_complete(self._s.acall("bash", args))
        else:
            r = self._s.call("bash", args)
        self.last = r
        if r.is_error:
            raise RuntimeError(f"{self.name}: isError result: {r.text[:300]!r}")
        return r.text

    def close(self) -> None:
        self._s.close()
        self._rt.close()
        if self._loop is not None:
            self._loop.close()


class FloorShell(Shell):
    name = "floor"

    def __init__(self, cwd: str) -> None:
        self._sh = RawPtyShell(cwd)

    def run(self, command: str) -> str:
        return self._sh.run(command).decode("utf-8", "replace")

    def close(self) -> None:
        self._sh.close()


class PexpectShell(Shell):
    def __init__(self, cwd: str, nodelay: bool = False) -> None:
        from pexpect import replwrap

        self.name = "pexpect-nodelay" if nodelay else "pexpect"
        self._b = replwrap.bash()
        if nodelay:
            self._b.child.delaybeforesend = None
        self._b.run_command(f"cd {cwd!r}")

    def run(self, command: str) -> str:
        return self._b.run_command(command, timeout=600).replace("\r\n", "\n")

    def close(self) -> None:
        self._b.child.close(force=True)


class SweRexShell(Shell):
    """SWE-ReX's LocalRuntime bash session, driven from its own event loop."""

    name = "swe-rex"

    def __init__(self, cwd: str) -> None:
        from swerex.runtime.abstract import BashAction, CreateBashSessionRequest
        from swerex.runtime.local import LocalRuntime

        self._action = BashAction
        self._loop = asyncio.new_event_loop()
        self._rt = LocalRuntime()
        self._loop.run_until_complete(self._rt.create_session(CreateBashSessionRequest()))
        self.run(f"cd {cwd!r}")

    def run(self, command: str) -> str:
        obs = self._loop.run_until_complete(
            self._rt.run_in_session(self._action(command=command, timeout=600))
        )
        return str(obs.output)

    def close(self) -> None:
        self._loop.run_until_complete(self._rt.close())
        self._loop.close()


FACTORIES: dict[str, Callable[[str], Shell]] = {
    "floor": FloorShell,
    "shellport-library": lambda cwd: ShellportShell("library", cwd),
    "shellport-process": lambda cwd: ShellportShell("process", cwd),
    "shellport-library-acall": lambda cwd: ShellportShell("library", cwd, use_async=True),
    "pexpect": lambda cwd: PexpectShell(cwd),
    "pexpect-nodelay": lambda cwd: PexpectShell(cwd, nodelay=True),
    "swe-rex": SweRexShell,
}

# Which peer package each contender needs (None: nothing beyond shellport).
NEEDS: dict[str, str | None] = {
    "floor": None,
    "shellport-library": None,
    "shellport-process": None,
    "shellport-library-acall": None,
    "pexpect": "pexpect",
    "pexpect-nodelay": "pexpect",
    "swe-rex": "swe-rex",
}
