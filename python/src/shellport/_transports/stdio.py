"""The process transport: newline-delimited JSON-RPC over a child's stdin and stdout.

The child is the bundled ``shellport serve`` or any command that speaks the
protocol on stdio (``docker exec -i CONTAINER /opt/shellport serve``). It runs
in its own session, so a Ctrl-C aimed at the Python program does not kill it
(the Runtime cancels the call instead). Its standard error is kept in a
bounded ring and attached to ProcessExited.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import select
import selectors
import subprocess
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from typing import cast

from .._exceptions import BinaryNotFound, ProcessExited, TransportError
from .._native import foreign_file_hint
from .base import BaseTransport, Message, encode

_CHUNK = 1 << 18
# Stderr is read in pieces below glibc's default mmap threshold (128 KiB),
# from the heap: a read of _CHUNK into a new object would map and unmap
# its memory each time (see _chunk). A full pipe (64 KiB) takes four.
_ERR_CHUNK = 16 << 10
_STDERR_KEEP = 16 << 10
_EXIT_WAIT = 3.0  # seconds a closed runtime gets to exit before it is killed


class StdioTransport(BaseTransport):
    """Messages as lines on the stdin and stdout of a child process."""

    name = "process"
    fork_reason = "its reader thread did not survive fork(), and its pipes are the parent's"

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        super().__init__()
        self.argv = [os.fspath(a) for a in argv]
        if not self.argv:
            raise ValueError("the process transport needs a command to run")
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                env=None if env is None else dict(env),
                cwd=cwd,
                close_fds=True,
                start_new_session=True,
            )
        except OSError as exc:
            if exc.errno == errno.ENOEXEC:
                raise BinaryNotFound(
                    f"cannot run {self.argv[0]!r}: {exc}. {foreign_file_hint(self.argv[0])}"
                ) from exc
            raise BinaryNotFound(f"cannot start {self.argv[0]!r}: {exc}") from exc
        assert self._proc.stdin
        assert self._proc.stdout
        assert self._proc.stderr
        self._stdin = self._proc.stdin
        self._out_fd = self._proc.stdout.fileno()
        self._err_fd = self._proc.stderr.fileno()
        # Our end of the pipe only: an event loop reads what is there
        # without waiting (receive_ready). Stderr too: two readers (the
        # reader thread, a blocking call that reads) may both see it ready,
        # and the second must find it empty, not wait on it holding the
        # read lock.
        os.set_blocking(self._out_fd, False)
        os.set_blocking(self._err_fd, False)
        self._send_lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer known to hold no newline
        # What receive_ready reads into (under _read_lock), made once: a
        # read of _CHUNK bytes into a new object has malloc map the memory
        # afresh, and unmap it, on every call (mmap, mremap, munmap and a
        # page fault per reply, issue 16).
        self._chunk = memoryview(bytearray(_CHUNK))
        # Unbuffered (bufsize=0): the pipe's raw file, whose readinto is one
        # read(2) and says None where the empty pipe would block.
        self._read_into = cast(io.RawIOBase, self._proc.stdout).readinto
        # Lines taken off _buffer and not yet handed over: receive_ready
        # gathers them here, not in a local, so a KeyboardInterrupt while it
        # runs (a blocking call reads on the main thread) leaves them for the
        # next reader instead of losing them.
        self._lines: list[bytes] = []
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out_fd, selectors.EVENT_READ)
        self._selector.register(self._err_fd, selectors.EVENT_READ)
        self._err_open = True
        self._eof = False
        self._exited: ProcessExited | None = None

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._proc.pid

    def stderr_tail(self) -> str:
        """The last part of what the child wrote to standard error."""
        return b"".join(self._stderr).decode("utf-8", "replace")

    def _check(self) -> None:
        self.check()
        if self._exited is not None:
            raise self._exited_error()

    def send(self, message: Message) -> None:
        # The connection sends requests encoded already (bytes): one copy.
        data = (message if type(message) is bytes else encode(message)) + b"\n"
        self._check()
        with self._send_lock:
            try:
                self._stdin.write(data)
            except (ValueError, OSError) as exc:
                # The reader thread collects stderr and keeps the full report;
                # the sender gets the exit status.
                raise self._exited_error(wait=True, keep=False) from exc

    def receive(self, timeout: float) -> bytes | None:
        self._check()
        with self._read_lock:
            self.check()  # closed while this thread waited for the lock
            return self._receive_locked(timeout)

    def receive_many(self, timeout: float) -> list[bytes]:
        # One read brings every line the runtime wrote since the last:
        # they go to the reader together.
        self._check()
        with self._read_lock:
            self.check()  # closed while this thread waited for the lock
            first = self._receive_locked(timeout)
            if first is None:
                return []
            out = [first]
            while (line := self._take_line()) is not None:
                out.append(line)
            return out

    def _receive_locked(self, timeout: float) -> bytes | None:
        line = self._take_line()
        if line is not None:
            return line
        if self._eof:
            raise self._exited_error(wait=True)
        for key, _ in self._selector.select(timeout):
            fd = key.fd
            try:
                if fd == self._err_fd:
                    self._read_stderr()
                    continue
                n = self._read_into(self._chunk)  # under _read_lock, as receive_ready
            except BlockingIOError:
                continue  # another reader took it first (receive_ready)
            except OSError as exc:
                raise TransportError(f"read from the runtime process failed: {exc}") from exc
            if n is None:
                continue  # another reader took it first (receive_ready)
            if n:
                self._buffer += self._chunk[:n]
            else:
                self._eof = True
                self._selector.unregister(fd)
        line = self._take_line()
        if line is None and self._eof:
            raise self._exited_error(wait=True)
        return line

    def reply_fd(self) -> int | None:
        # A duplicate of our end of the child's stdout: it stays valid for
        # whoever watches it until they close it, whatever close() does.
        self._check()
        with self._read_lock:
            self.check()
            return os.dup(self._out_fd)

    callers_read = True

    def wait_ready(self, fd: int, timeout: float, wake: int = -1) -> bool:
        # Whoever waits here (the reader thread, a blocking call reading its
        # own reply) also keeps the child's stderr drained, so a child that
        # writes much there never blocks on it; it holds no lock while it
        # waits, so an event loop reads replies meanwhile.
        err = self._err_fd if self._err_open and not self.closed else -1
        watched = [fd]
        if err >= 0:
            watched.append(err)
        if wake >= 0:
            watched.append(wake)
        try:
            ready = select.select(watched, [], [], timeout)[0]
        except (OSError, ValueError):
            self.check()  # closed under us
            raise
        if err in ready:
            with self._read_lock:
                if self._err_open and not self.closed:
                    try:
                        self._read_stderr()
                    except BlockingIOError:
                        pass  # another reader took it first
                    except OSError:  # a broken stderr ends like a closed one
                        self._err_open = False
                        self._selector.unregister(err)
        return fd in ready or (wake >= 0 and wake in ready)

    def receive_ready(self) -> list[bytes] | None:
        with self._read_lock:
            self.check()
            chunk = self._chunk
            while not self._eof:
                try:
                    n = self._read_into(chunk)
                except OSError as exc:
                    raise TransportError(f"read from the runtime process failed: {exc}") from exc
                if n is None:  # nothing there (the descriptor does not block)
                    break
                if not n:
                    self._eof = True
                    self._selector.unregister(self._out_fd)
                    break
                self._buffer += chunk[:n]
                if n < _CHUNK:
                    break  # the pipe is empty: spare the read that would say so
            self._take_lines()
            out, self._lines = self._lines, []  # no call in between: nothing can interrupt
            if not out and self._eof:
                return None  # receive_many tells how the child ended
            return out

    def _take_lines(self) -> None:
        """Move every whole line of _buffer to _lines, each the moment it leaves _buffer."""
        lines = self._lines
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
                return
            line = bytes(self._buffer[:end]).rstrip(b"\r")
            keep = bool(line.strip())
            # From the del to the append nothing is called, so no signal
            # handler runs between them: the line is in one place or the other.
            del self._buffer[: end + 1]
            self._scanned = 0
            if keep:
                lines.append(line)

    def _take_line(self) -> bytes | None:
        if self._lines:  # left by a receive_ready an exception cut short
            return self._lines.pop(0)
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
                return None
            line = bytes(self._buffer[:end]).rstrip(b"\r")
            del self._buffer[: end + 1]
            self._scanned = 0
            if line.strip():
                return line

    def _read_stderr(self) -> None:
        """Take what the child's stderr holds now, which select found readable.

        Pieces of _ERR_CHUNK until one comes short or the pipe is empty: as
        much as one read of a whole pipe took, without its large object.
        An OSError of the first read is the caller's (BlockingIOError:
        another reader took it first).
        """
        chunk = os.read(self._err_fd, _ERR_CHUNK)
        while chunk:
            self._keep_stderr(chunk)
            if len(chunk) < _ERR_CHUNK:
                return
            try:
                chunk = os.read(self._err_fd, _ERR_CHUNK)
            except OSError:  # BlockingIOError too: empty now; a real error shows next time
                return
        self._err_open = False
        self._selector.unregister(self._err_fd)

    def _keep_stderr(self, chunk: bytes) -> None:
        self._stderr.append(chunk)
        self._stderr_size += len(chunk)
        while self._stderr_size > _STDERR_KEEP and len(self._stderr) > 1:
            self._stderr_size -= len(self._stderr.popleft())

    def _drain_stderr(self) -> None:
        """Collect what is left on stderr without waiting for its end."""
        while self._err_open and select.select([self._err_fd], [], [], 0)[0]:
            try:
                chunk = os.read(self._err_fd, _ERR_CHUNK)
            except OSError:  # BlockingIOError too: another reader took it first
                return
            if not chunk:
                self._err_open = False
                self._selector.unregister(self._err_fd)
                return
            self._keep_stderr(chunk)

    def _exited_error(self, wait: bool = False, keep: bool = True) -> ProcessExited:
        """Describe the child's end. The reader (keep=True) records the report."""
        if self._exited is None:
            code: int | None = None
            try:
                code = self._proc.wait(timeout=_EXIT_WAIT) if wait else self._proc.poll()
            except subprocess.TimeoutExpired:
                code = None
            if keep:
                self._drain_stderr()
            tail = self.stderr_tail().strip()
            status = "is still running but" if code is None else _describe(code) + " and"
            message = f"the runtime process {self.argv[0]!r} (pid {self._proc.pid}) {status}"
            message += " closed its output"
            message += f"; its last stderr:\n{tail}" if tail else "; it wrote nothing to stderr"
            report = ProcessExited(message, returncode=code, stderr=tail)
            if not keep:
                return report
            self._exited = report
        e = self._exited
        return ProcessExited(str(e), returncode=e.returncode, stderr=e.stderr)

    def close(self) -> None:
        """Close stdin (the runtime exits at end of input), wait a bounded time, then kill."""
        if self.closed:
            return
        if self.forked:
            self.closed = True  # the pipes and the process are the parent's
            return
        # Best effort: it may have exited already.
        with self._send_lock, contextlib.suppress(OSError):
            self._stdin.close()
        try:
            self._proc.wait(timeout=_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            # Unkillable (stopped under a debugger?): nothing more to do.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=_EXIT_WAIT)
        with self._read_lock:
            self.closed = True
            self._selector.close()
            for stream in (self._proc.stdout, self._proc.stderr):
                if stream is not None:
                    stream.close()


def _describe(code: int) -> str:
    if code < 0:
        return f"was killed by signal {-code}"
    return f"exited with code {code}"


# shellport/__init__.py presents its public classes as shellport.X; this one loads
# on first use (issue 16), so it says so itself.
StdioTransport.__module__ = "shellport"
