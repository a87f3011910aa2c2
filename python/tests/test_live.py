"""Live output and presentation at every stage (issue 17), on both transports.

``on_output`` gets the output of bash and persistent bash while the command
runs, in pieces, before the call returns; the pieces joined are the output
the result holds; a flood is coalesced and bounded; a consumer that raises
or blocks does not break the call; a cancelled call's stream stops.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import shellport

PROFILES = ["oneshot", "persistent"]
SLOW = 'for i in 1 2 3 4 5; do echo "line $i"; sleep 0.3; done'
STREAM_LIMIT = 1 << 20  # output.StreamLimit
STREAM_INTERVAL = 0.05  # output.StreamInterval, seconds


def args(profile: str, command: str) -> dict[str, Any]:
    a: dict[str, Any] = {"command": command}
    if profile == "oneshot":
        a["description"] = "live output test"
    return a


def output_of(r: shellport.ToolResult) -> str:
    out = r.presentation["rawOutput"]["output"]
    assert isinstance(out, str)
    return out


class Pieces:
    """A consumer that records each piece and when the call had not returned yet."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.returned = False
        self.after_return = 0

    def __call__(self, text: str) -> None:
        if self.returned:
            self.after_return += 1
        self.pieces.append(text)

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@pytest.mark.parametrize("profile", PROFILES)
def test_slow_lines_arrive_while_the_command_runs(
    tmp_path: Path, transport: str, profile: str
) -> None:
    with shellport.Runtime({"profile": profile}, transport) as rt, rt.session(tmp_path) as s:
        seen = Pieces()
        r = s.call("bash", args(profile, SLOW), on_output=seen)
        seen.returned = True
        assert len(seen.pieces) >= 2, seen.pieces
        assert seen.text == output_of(r) == "".join(f"line {i}\n" for i in range(1, 6))
        # The result is what it is without streaming.
        plain = s.call("bash", args(profile, SLOW))
        assert (plain.text, plain.meta) == (r.text, r.meta)


@pytest.mark.parametrize("profile", PROFILES)
async def test_acall_streams_to_a_coroutine(tmp_path: Path, transport: str, profile: str) -> None:
    async def main() -> tuple[list[str], shellport.ToolResult]:
        pieces: list[str] = []

        async def consume(text: str) -> None:
            await asyncio.sleep(0)
            pieces.append(text)

        async with shellport.Runtime({"profile": profile}, transport) as rt:  # noqa: SIM117 (3.9)
            async with rt.session(tmp_path) as s:
                r = await s.acall("bash", args(profile, SLOW), on_output=consume)
        return pieces, r

    # Under pytest-asyncio's loop, not asyncio.run: on Python 3.9 a run of
    # its own left pytest-asyncio an unclosed loop at the session's end.
    pieces, r = await main()
    assert len(pieces) >= 2
    assert "".join(pieces) == output_of(r)


@pytest.mark.parametrize("profile", PROFILES)
def test_flood_is_coalesced_and_bounded(tmp_path: Path, transport: str, profile: str) -> None:
    with shellport.Runtime({"profile": profile}, transport) as rt, rt.session(tmp_path) as s:
        seen = Pieces()
        began = time.monotonic()
        r = s.call("bash", args(profile, "yes 'y flood' | head -c 6000000; echo"), on_output=seen)
        took = time.monotonic() - began
        assert r.meta["truncated"] is True
        # At most one piece per interval, plus the first and the last: a count
        # against the time the call took, not a speed assertion.
        assert len(seen.pieces) <= took / STREAM_INTERVAL + 2
        assert len(seen.text.encode()) <= STREAM_LIMIT + 4096
        assert "[live output stops here" in seen.text


@pytest.mark.parametrize("profile", PROFILES)
def test_a_consumer_that_raises_does_not_break_the_call(
    tmp_path: Path, transport: str, profile: str, caplog: pytest.LogCaptureFixture
) -> None:
    calls = 0

    def bad(text: str) -> None:
        nonlocal calls
        calls += 1
        raise ValueError("consumer bug")

    with shellport.Runtime({"profile": profile}, transport) as rt, rt.session(tmp_path) as s:
        r = s.call("bash", args(profile, SLOW), on_output=bad)
        assert output_of(r).startswith("line 1\n")
        assert r.meta["exitCode"] == 0
        assert calls == 1  # not called again after it raised
        assert "on_output raised" in caplog.text
        # The session goes on.
        assert s.call("bash", args(profile, "echo next")).text.startswith("next")


@pytest.mark.parametrize("profile", PROFILES)
def test_a_consumer_that_blocks_does_not_break_the_call(
    tmp_path: Path, transport: str, profile: str
) -> None:
    release = threading.Event()
    seen = Pieces()

    def slow(text: str) -> None:
        if not seen.pieces:
            release.wait(60)  # a hang guard; released from another thread
        seen(text)

    with shellport.Runtime({"profile": profile}, transport) as rt, rt.session(tmp_path) as s:
        # Another call of the same runtime is answered while the consumer blocks.
        other = rt.session(tmp_path)

        def unblock() -> None:
            other.call("bash", args(profile, "echo other"))
            time.sleep(1.8)  # let the slow command finish while the consumer is stuck
            release.set()

        t = threading.Thread(target=unblock)
        t.start()
        r = s.call("bash", args(profile, SLOW), on_output=slow)
        t.join()
        other.close()
        assert seen.text == output_of(r)


@pytest.mark.parametrize("profile", PROFILES)
async def test_cancellation_stops_the_stream(tmp_path: Path, transport: str, profile: str) -> None:
    async def main() -> tuple[int, int]:
        seen = Pieces()
        first = asyncio.Event()

        def consume(text: str) -> None:
            seen(text)
            first.set()

        async with shellport.Runtime({"profile": profile}, transport) as rt:  # noqa: SIM117 (3.9)
            async with rt.session(tmp_path) as s:
                cmd = "for i in $(seq 1 300); do echo tick $i; sleep 0.05; done"
                task = asyncio.ensure_future(s.acall("bash", args(profile, cmd), on_output=consume))
                await asyncio.wait_for(first.wait(), 60)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                n = len(seen.pieces)
                await asyncio.sleep(1)  # pieces still on their way would arrive here
                after = await s.acall("bash", args(profile, "echo after"))
                assert "after\n" in after.text
        return n, len(seen.pieces)

    at_cancel, later = await main()
    assert at_cancel >= 1
    assert later == at_cancel


@pytest.mark.parametrize("profile", PROFILES)
def test_present_stages(tmp_path: Path, transport: str, profile: str) -> None:
    (tmp_path / "sub").mkdir()
    a = args(profile, "pwd")
    want_cwd = str(tmp_path)
    if profile == "oneshot":
        a["workdir"] = "sub"
        want_cwd = str(tmp_path / "sub")
    with shellport.Runtime({"profile": profile}, transport) as rt, rt.session(tmp_path) as s:
        before = s.present("bash", a, call_id="toolu_9", output="partial\n")
        assert before["call"]["title"] == "pwd"
        assert before["call"]["kind"] == "execute"
        assert before["call"]["_meta"]["terminal_info"] == {
            "terminal_id": "toolu_9",
            "cwd": want_cwd,
        }
        assert before["running"]["_meta"]["terminal_output"] == {
            "terminal_id": "toolu_9",
            "data": "partial\n",
        }
        assert "completed" not in before
        r = s.call("bash", a, call_id="toolu_9")
        replay = rt.present("bash", a, result=r.raw, call_id="toolu_9", cwd=tmp_path)
        assert replay["completed"] == r.presentation
        assert replay["call"] == before["call"]
        assert s.present("bash", a, result=r, call_id="toolu_9")["completed"] == r.presentation
        generic = rt.present("bash", {"cmd": 1}, result={"content": "junk"})
        assert generic["call"]["kind"] == "other"
        assert generic["completed"]["status"]
