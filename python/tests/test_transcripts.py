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

import shellport
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


#: Sent after a transcript's last step; every runtime answers it at once, so
#: replies still on their way are checked too (issue 18).
END_PROBE = (
    '{"jsonrpc":"2.0","id":"transcript-end","method":"$/cancelRequest",'
    '"params":{"id":"transcript-none"}}'
)


def _is_reply(msg: dict[str, Any]) -> bool:
    return "method" not in msg and "id" in msg


class _Replay:
    """Reads messages, failing on a duplicate reply or one no step expects."""

    def __init__(self, transport: BaseTransport, name: str) -> None:
        self.transport = transport
        self.name = name
        self.pending: list[dict[str, Any]] = []
        self.matched: list[Any] = []

    def take(self, accept: Any, what: str) -> dict[str, Any] | None:
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = next((m for m in self.pending if accept(m)), None)
            if found is not None:
                self.pending.remove(found)
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"{self.name}: no message for {what}; unmatched: {self.pending}")
            try:
                data = self.transport.receive(min(left, 0.5))
            except shellport.TransportError:
                return None  # the runtime is gone (the transcript ended with exit)
            if data is None:
                continue
            msg = json.loads(data)
            if _is_reply(msg) and msg["id"] is not None and msg["id"] in self.matched:
                pytest.fail(f"{self.name}: request {msg['id']!r} was answered twice: {msg}")
            self.pending.append(msg)

    def end(self) -> None:
        try:
            self.transport.send(END_PROBE.encode())
        except shellport.TransportError:
            pass
        else:
            self.take(lambda m: _is_reply(m) and m["id"] == "transcript-end", "the end probe")
        extras = [m for m in self.pending if _is_reply(m)]
        assert not extras, f"{self.name}: replies no step asked for: {extras}"


def _replay(transport: BaseTransport, path: Path) -> None:
    replay = _Replay(transport, path.name)
    for line, kind, body in _load(path):
        if kind == "send":
            transport.send(body.encode("utf-8"))
            continue
        found = replay.take(lambda m, want=body: _same(want, m), f"line {line}: {body}")
        assert found is not None, f"{path.name}:{line}: the runtime went away before {body}"
        if "id" in body and body["id"] is not None:
            replay.matched.append(body["id"])
        assert _matches(body, found), f"{path.name}:{line}:\n want {body}\n got  {found}"
    replay.end()


def test_runner_fails_on_duplicate_and_extra_replies() -> None:
    """Issue 18: the runner must fail when a request is answered twice or
    a reply arrives that no step asked for."""

    class Scripted(BaseTransport):
        def __init__(self, answers: list[str]) -> None:
            self.queue = list(answers)

        def send(self, message: Any) -> None:
            if message == END_PROBE.encode():
                self.queue.append('{"jsonrpc":"2.0","id":"transcript-end","result":{}}')

        def receive(self, timeout: float) -> bytes | None:
            return self.queue.pop(0).encode() if self.queue else None

        def close(self) -> None:
            pass

    one = '{"jsonrpc":"2.0","id":1,"result":{}}'
    for answers, ok in [
        ([one], True),
        ([one, one], False),
        ([one, '{"jsonrpc":"2.0","id":2,"result":{}}'], False),
        (['{"jsonrpc":"2.0","method":"session/notice","params":{}}', one], True),
    ]:
        replay = _Replay(Scripted(answers), "scripted")
        outcome: BaseException | None = None
        try:
            assert replay.take(lambda m: m.get("id") == 1, "id 1") is not None
            replay.matched.append(1)
            replay.end()
        except (AssertionError, pytest.fail.Exception) as exc:
            outcome = exc
        assert (outcome is None) == ok, (answers, outcome)


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
    assert len(TRANSCRIPTS) >= 6
