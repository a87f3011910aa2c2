"""Fixtures shared by the API tests: every API test runs on both transports.

The native files come from SHELLPORT_LIBRARY_PATH / SHELLPORT_BINARY_PATH when
set, else from the package's _native/ directory (``make native`` puts them
there). Missing files fail the run with instructions rather than skipping:
a green run must mean both transports were exercised.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import pytest

import shellport
from shellport import _native
from shellport._transports.base import BaseTransport

#: The config every API test uses: the runtime's self-test tools mounted.
CONFIG = {"testTools": True}

TRANSPORTS = ["library", "process"]

_BUILD_HINT = (
    "build them first: `go build -buildmode=c-shared -o python/src/shellport/_native/"
    "libshellport.so ./capi && go build -o python/src/shellport/_native/shellport "
    "./cmd/shellport` (or `make native`), or set SHELLPORT_LIBRARY_PATH / SHELLPORT_BINARY_PATH"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--require-remote",
        action="store_true",
        help="fail, instead of skipping, a remote test (tests/remote) whose sandbox cannot "
        "start here; .ci/run sets it, so CI never skips them",
    )


def library_path() -> str:
    """The shared library the tests load."""
    path = os.environ.get(_native.ENV_LIBRARY) or str(
        _native.NATIVE_DIR / _native.library_filename()
    )
    if not os.path.isfile(path):
        pytest.fail(f"no shellport library at {path}; {_BUILD_HINT}", pytrace=False)
    return path


def binary_path() -> str:
    """The executable the process transport runs."""
    path = os.environ.get(_native.ENV_BINARY) or str(_native.NATIVE_DIR / _native.BINARY_NAME)
    if not os.path.isfile(path):
        pytest.fail(f"no shellport executable at {path}; {_BUILD_HINT}", pytrace=False)
    return path


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """The transport under test: "library" or "process"."""
    name: str = request.param
    if name == "library":
        reason = _native.library_supported()
        if reason is not None:
            pytest.skip(f"library transport unavailable: {reason}")
        library_path()
    else:
        binary_path()
    return name


@pytest.fixture
def rt(transport: str) -> Iterator[shellport.Runtime]:
    """An open Runtime with the self-test tools, closed after the test."""
    runtime = shellport.Runtime(CONFIG, transport)
    try:
        yield runtime
    finally:
        runtime.close()


@pytest.fixture
def session(rt: shellport.Runtime, tmp_path: Path) -> shellport.Session:
    """A session in a fresh temporary directory."""
    return rt.session(tmp_path)


def wait_until(predicate: Callable[[], bool], what: str, limit: float = 15.0) -> None:
    """Poll until predicate holds; the limit only guards against a hang."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting: {what}")
        time.sleep(0.01)


def alive(pid: int) -> bool:
    """Whether pid is a live process (a zombie has already died)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def spare_supervisors() -> set[int]:
    """Live spare supervisors on the machine, and the spawners that fork them:
    shellport-spawn-helper --spare, or --spawner (a spare the spawner forked
    keeps its command line)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        helper = args[0].endswith(b"shellport-spawn-helper")
        spare = b"--spare" in args or b"--spawner" in args
        if helper and spare and alive(int(entry.name)):
            found.add(int(entry.name))
    return found


def wait_dead(pid: int, what: str) -> None:
    """Wait (bounded) until pid is gone or a zombie."""

    def dead() -> bool:
        return not alive(pid)

    wait_until(dead, f"{what} (pid {pid}) to die")


def in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class _CtrlCOnWire(logging.Handler):
    """Raises KeyboardInterrupt once, on the thread that made it, at the first reply with needle."""

    def __init__(self, needle: str) -> None:
        super().__init__()
        self.needle = needle
        self.thread = threading.get_ident()
        self.raised: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if (
            not self.raised
            and threading.get_ident() == self.thread
            and str(record.msg).startswith("<-")
            and self.needle in record.getMessage()
        ):
            self.raised.append(record.getMessage())
            raise KeyboardInterrupt


@contextmanager
def ctrl_c_in_dispatch(needle: str) -> Iterator[list[str]]:
    """A Ctrl-C landing while this thread dispatches replies: the first reply holding needle.

    The wire logger's handlers run inside the dispatch of each message, so a
    handler that raises KeyboardInterrupt there stands for a Ctrl-C arriving
    at that moment. Yields the list of what it raised at (empty until then).
    """
    wire = logging.getLogger("shellport.wire")
    handler = _CtrlCOnWire(needle)
    old_level = wire.level
    wire.addHandler(handler)
    wire.setLevel(logging.DEBUG)
    try:
        yield handler.raised
    finally:
        wire.removeHandler(handler)
        wire.setLevel(old_level)


@contextmanager
def readers_of(transport: BaseTransport) -> Iterator[dict[int, int]]:
    """Count, per thread, the messages taken through transport.receive_ready while in the block.

    Yields the counts (thread id to messages), filled in as they are taken.
    """
    original = transport.receive_ready
    readers: dict[int, int] = {}

    def counted() -> list[bytes] | None:
        got = original()
        if got:
            me = threading.get_ident()
            readers[me] = readers.get(me, 0) + len(got)
        return got

    transport.receive_ready = counted  # type: ignore[method-assign]
    try:
        yield readers
    finally:
        del transport.receive_ready
