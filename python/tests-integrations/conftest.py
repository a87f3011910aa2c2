"""Fixtures of the harness integration tests: native files, transports, processes.

These tests run the harnesses' own packages (installed by `make
test-integrations` into build/integrations-venv) against the real runtime,
on both transports where a harness lets the transport be chosen. Nothing
here uses the network.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

import pytest

from shellport import _native

TRANSPORTS = ["library", "process"]


def binary_path() -> str:
    """The shellport executable (`make native` puts it in the package)."""
    path = os.environ.get(_native.ENV_BINARY) or str(_native.NATIVE_DIR / _native.BINARY_NAME)
    if not os.path.isfile(path):
        pytest.fail(f"no shellport executable at {path}; run `make native`", pytrace=False)
    return path


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """The transport under test: "library" or "process"."""
    name: str = request.param
    if name == "library" and _native.library_supported() is not None:
        pytest.skip(f"library transport unavailable: {_native.library_supported()}")
    return name


def wait_until(predicate: Callable[[], bool], what: str, limit: float = 30.0) -> None:
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


def descendants(pid: int) -> list[int]:
    """Every live process below pid (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def read_pid(path: Path) -> int:
    """The pid a command wrote to path, once it is there whole."""
    wait_until(lambda: path.exists() and path.read_text().endswith("\n"), f"a pid in {path}")
    return int(path.read_text())


# The Agents SDK exports traces to OpenAI by default; these tests use no network.
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
