"""The raw-PTY floor: the least any persistent shell on a terminal can cost.

One bash on a pseudo-terminal (no echo, no prompt, no readline), driven by
writing a command followed by a marker and reading until the marker comes
back. No sleeps, no polling timers: a blocking read per chunk. Every
persistent-shell number in the report is divided by this one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import termios

_CHUNK = 1 << 16


class RawPtyShell:
    """A bash on a PTY that runs one command per call and returns its output."""

    def __init__(self, cwd: str = "/") -> None:
        master, slave = os.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~(termios.ECHO | termios.ICANON)  # lflag: no echo, raw input
        attrs[1] &= ~termios.ONLCR  # oflag: keep \n as \n
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        env = dict(os.environ, PS1="", PS2="", PROMPT_COMMAND="", TERM="dumb")
        self._proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc", "--noediting", "+o", "history"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self._fd = master
        self._token = secrets.token_hex(8)
        self._n = 0
        self.pid = self._proc.pid
        self.run("true")  # the shell is ready once one marker came back

    def run(self, command: str) -> bytes:
        """Run command; return everything it printed (bytes, markers removed)."""
        self._n += 1
        marker = f"{self._token}{self._n}".encode()
        # The marker is printed in two halves so its own text never matches.
        head, tail = marker[:8].decode(), marker[8:].decode()
        line = f"{command}\nprintf '%s%s\\n' {head} {tail}\n".encode()
        os.write(self._fd, line)
        want = marker + b"\n"
        chunks: list[bytes] = []
        window = b""
        while True:
            data = os.read(self._fd, _CHUNK)
            if not data:
                raise EOFError("the floor's bash exited")
            chunks.append(data)
            window = (window + data)[-(len(want) + len(data)) :]
            if window.endswith(want):
                out = b"".join(chunks)
                return out[: -len(want)]

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait(5)
        os.close(self._fd)


__all__ = ["RawPtyShell", "arun"]


async def arun(shell: RawPtyShell, command: str) -> bytes:
    """RawPtyShell.run for asyncio: wait for readability instead of blocking."""
    import asyncio

    loop = asyncio.get_running_loop()
    fd = shell._fd
    shell._n += 1
    marker = f"{shell._token}{shell._n}".encode()
    head, tail = marker[:8].decode(), marker[8:].decode()
    os.write(fd, f"{command}\nprintf '%s%s\\n' {head} {tail}\n".encode())
    want = marker + b"\n"
    chunks: list[bytes] = []
    window = b""
    while True:
        ready = loop.create_future()
        loop.add_reader(fd, ready.set_result, None)
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        data = os.read(fd, _CHUNK)
        if not data:
            raise EOFError("the floor's bash exited")
        chunks.append(data)
        window = (window + data)[-(len(want) + len(data)) :]
        if window.endswith(want):
            return b"".join(chunks)[: -len(want)]
