"""The shared JSON-RPC transcripts (testdata/rpc/*.jsonl), replayed through
both Python transports at the message level.

The Go tests replay the same files over the in-process path and the stdio
executable; together they hold every carrier to the same answers. The format
is described in internal/transcript/transcript.go.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import binary_path, library_path
from shellport import _native
from shellport._transports.base import BaseTransport
from shellport._transports.cdll import CDLLTransport
from shellport._transports.stdio import StdioTransport

TRANSCRIPTS = sorted((Path(__file__).parents[2] / "testdata" / "rpc").glob("*.jsonl"))
TIMEOUT = 20.0


def _load(path: Path) -> list[tuple[int, str, Any]]:
    steps = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        step = json.loads(line)
        ((kind, body),) = step.items()
        # Send the exact text of the transcript, so escapes such as \u0000
        # reach the runtime unchanged.
        raw = re.sub(r'^\{"send":\s*', "", line)[:-1] if kind == "send" else body
        steps.append((n, kind, raw))
    return steps


def _matches(want: Any, got: Any) -> bool:
    if isinstance(want, str):
        if want == "<any>":
            return True
        if want.startswith("re:"):
            return isinstance(got, str) and re.search(want[3:], got) is not None
    if isinstance(want, dict):
        return isinstance(got, dict) and all(
            (k in got and _matches(v, got[k])) or (k not in got and v == "<any>")
            for k, v in want.items()
        )
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(_matches(w, g) for w, g in zip(want, got))
        )
    return bool(want == got)


def _same(want: dict[str, Any], msg: dict[str, Any]) -> bool:
    if "id" in want:
        return "method" not in msg and msg.get("id") == want["id"]
    return msg.get("method") == want.get("method")


def _replay(transport: BaseTransport, path: Path) -> None:
    pending: list[dict[str, Any]] = []
    for line, kind, body in _load(path):
        if kind == "send":
            transport.send(body.encode("utf-8"))
            continue
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = next((m for m in pending if _same(body, m)), None)
            if found is not None:
                pending.remove(found)
                break
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"{path.name}:{line}: no message for {body}; unmatched: {pending}")
            data = transport.receive(min(left, 0.5))
            if data is not None:
                pending.append(json.loads(data))
        assert _matches(body, found), f"{path.name}:{line}:\n want {body}\n got  {found}"


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.name for p in TRANSCRIPTS])
def test_transcript_library(path: Path) -> None:
    reason = _native.library_supported()
    if reason is not None:
        pytest.skip(f"library transport unavailable: {reason}")
    with CDLLTransport(library_path()) as transport:
        _replay(transport, path)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.name for p in TRANSCRIPTS])
def test_transcript_process(path: Path) -> None:
    with StdioTransport([binary_path(), "serve"]) as transport:
        _replay(transport, path)


def test_transcripts_exist() -> None:
    assert len(TRANSCRIPTS) >= 5
