"""What the sandbox tests share: both profiles, a runtime that can enforce, two directories.

Every test here runs through both transports (the root conftest's
``transport``) and, where a shell is involved, both profiles. A runtime on a
machine without Landlock and seccomp skips the test rather than passing it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import shellport

from .kit import PROFILES, open_runtime


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def rt(transport: str, profile: str) -> Iterator[shellport.Runtime]:
    runtime = open_runtime(transport, profile)
    try:
        yield runtime
    finally:
        runtime.close()


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace and a directory outside it."""
    ws, out = tmp_path / "ws", tmp_path / "out"
    ws.mkdir()
    out.mkdir()
    return ws, out
