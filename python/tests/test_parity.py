"""The library and the executable give identical results for the same calls (issue 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import shellport
from conftest import CONFIG, binary_path, library_path
from shellport import _native

CALLS: list[tuple[str, Any]] = [
    ("_echo", {}),
    ("_echo", {"text": "héllo\nworld\t✓", "list": [1, 2.5, None, True, {"k": "v"}]}),
    ("_echo", {"text": "a\x00b"}),
    ("_sleep", {"ms": "soon"}),
    ("_sleep", {"ms": 1}),
    ("_notify", {"text": "done"}),
    ("no_such_tool", {}),
    ("_panic", {}),
    ("_echo", ["not", "an", "object"]),
    ("_echo", {"blob": "y" * (9 << 20)}),
]


def _script(transport: str, cwd: Path) -> list[Any]:
    out: list[Any] = []
    with shellport.Runtime(CONFIG, transport) as rt:
        out += [rt.version, rt.profile, rt.tool_names]
        for fmt, strict in [
            ("mcp", False),
            ("openai", False),
            ("openai", True),
            ("anthropic", False),
        ]:
            out.append(rt.tools(format=fmt, strict=strict))
        for bad in ["relative", str(cwd / "missing")]:
            try:
                rt.session(bad)
            except shellport.RPCError as exc:
                out.append((type(exc).__name__, exc.code, exc.message))
        with rt.session(cwd, id="same", env={"A": "1"}) as s:
            for name, args in CALLS:
                try:
                    out.append(s.call(name, args).raw)
                except shellport.RPCError as exc:
                    out.append((type(exc).__name__, exc.code, exc.message))
            out.append(s.notices())
    return out


def _both(tmp_path: Path) -> tuple[list[Any], list[Any]]:
    if _native.library_supported() is not None:
        pytest.skip(f"library transport unavailable: {_native.library_supported()}")
    library_path()
    binary_path()
    return _script("library", tmp_path), _script("process", tmp_path)


def test_library_and_executable_agree(tmp_path: Path) -> None:
    via_library, via_process = _both(tmp_path)
    assert len(via_library) == len(via_process)
    for i, (a, b) in enumerate(zip(via_library, via_process)):
        assert a == b, f"step {i} differs"
    assert ["done"] in via_library


def test_too_large_messages_agree_exactly(tmp_path: Path) -> None:
    via_library, via_process = _both(tmp_path)
    assert via_library == via_process
