"""Session lifetime, exact inputs and the session environment (issue 10), on both
transports.

A session is a tenant: nothing of a closed session (its shell, tasks, notices,
processes) may be reachable through a later session with the same id, and
session/close answers only when every process of the session is gone. The Go
tests (internal/testkit/lifecycle, internal/core/stress_test.go) hold the core
and both Go carriers to the same cases; these check them end to end through
the Python package. Processes are counted by a token in the session's
environment, never timed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import secrets
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import shellport
from conftest import CONFIG, wait_until


def count_procs(token: str) -> int:
    """Live processes whose environment holds token (zombies are dead)."""
    n = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if token.encode() not in f.read():
                    continue
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            n += 1
    return n


@pytest.fixture(autouse=True)
def _needs_proc() -> None:
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc on this platform: cannot count processes")


@pytest.fixture
def prt(transport: str) -> Iterator[shellport.Runtime]:
    rt = shellport.Runtime({"profile": "persistent"}, transport)
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture
def ort(transport: str) -> Iterator[shellport.Runtime]:
    rt = shellport.Runtime(CONFIG, transport)
    try:
        yield rt
    finally:
        rt.close()


def start(rt: shellport.Runtime, method: str, params: dict[str, Any]) -> Any:
    """Send a request without waiting for it (to pipeline); returns its future."""
    return rt._connection().start(method, params)[1]


def bash(session: str, command: str, **extra: Any) -> dict[str, Any]:
    return {"session": session, "name": "bash", "arguments": {"command": command, **extra}}


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def token() -> str:
    return "tok" + secrets.token_hex(8)


def test_issue10_queued_persistent_calls_never_run_after_close(
    prt: shellport.Runtime, tmp_path: Path
) -> None:
    tok = token()
    s = prt.session(tmp_path, env={"SP_TOKEN": tok})
    running = start(prt, "tools/call", bash(s.id, "touch started; sleep 300"))
    wait_until(lambda: (tmp_path / "started").exists(), "the first call to start")
    queued = [
        start(prt, "tools/call", bash(s.id, f"touch queued-{i}; sleep 300 &")) for i in range(3)
    ]
    s.close()
    # The close has answered: nothing of the session may be alive.
    assert count_procs(tok) == 0
    with pytest.raises(
        shellport.Cancelled, match=f'session "{s.id}" was closed while the call ran'
    ):
        running.result(30)
    for f in queued:
        with pytest.raises(shellport.SessionNotFound, match="closed before this call started"):
            f.result(30)
    assert not list(tmp_path.glob("queued-*")), "a queued call ran after its session closed"
    assert count_procs(tok) == 0


def test_issue10_new_session_with_closed_id_inherits_no_shell(
    prt: shellport.Runtime, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    with prt.session(tmp_path, id="reuse") as old:
        old.call("bash", {"command": "export SECRET=hunter2; cd sub; leak() { echo LEAKED; }"})
    with prt.session(tmp_path, id="reuse") as new:
        got = new.call("bash", {"command": 'echo "[$SECRET] $(pwd)"; type leak 2>&1'}).text
    assert "hunter2" not in got
    assert "LEAKED" not in got
    assert got.startswith(f"[] {tmp_path}\n"), got


def test_issue10_new_session_with_closed_id_cannot_reach_old_tasks(
    ort: shellport.Runtime, tmp_path: Path
) -> None:
    with ort.session(tmp_path, id="reuse") as old:
        started = old.call(
            "bash",
            {"command": "echo SECRET; sleep 300", "description": "x", "run_in_background": True},
        )
        task_id = started.meta["taskId"]
    with ort.session(tmp_path, id="reuse") as new:
        for tool in ("bash_output", "bash_kill"):
            r = new.call(tool, {"task_id": task_id})
            assert r.is_error
            assert "belongs to another session" in r.text
            assert "SECRET" not in r.text
        # A notice arrives before the reply of the call that sent it.
        new.call("_notify", {"text": "mine"})
        assert new.notices() == ["mine"]


@pytest.mark.parametrize("profile", ["oneshot", "persistent"])
def test_issue10_pipelined_close_new_call_runs_in_new_session(
    transport: str, profile: str, tmp_path: Path
) -> None:
    with shellport.Runtime({"profile": profile}, transport) as rt:
        s = rt.session(tmp_path, id="p", env={"GEN": "0"})
        if profile == "persistent":
            s.call("bash", {"command": "export MARK=gen0"})
        extra = {"description": "pipelined"} if profile == "oneshot" else {}
        for gen in range(1, 8):
            command = f'echo "gen=$GEN mark=[$MARK]"; export MARK=gen{gen}'
            closing = start(rt, "session/close", {"session": "p"})
            opening = start(
                rt, "session/new", {"cwd": str(tmp_path), "id": "p", "env": {"GEN": str(gen)}}
            )
            calling = start(rt, "tools/call", bash("p", command, **extra))
            closing.result(30)
            opening.result(30)
            assert f"gen={gen} mark=[]" in text(calling.result(30))
        rt._connection().call("session/close", {"session": "p"})


def test_issue10_oneshot_commands_sent_before_close_die(
    ort: shellport.Runtime, tmp_path: Path
) -> None:
    for _ in range(3):
        tok = token()
        s = ort.session(tmp_path, env={"SP_TOKEN": tok})
        fg = start(ort, "tools/call", bash(s.id, "sleep 300", description="fg"))
        bg = start(
            ort, "tools/call", bash(s.id, "sleep 300", description="bg", run_in_background=True)
        )
        s.close()
        assert count_procs(tok) == 0
        for f in (fg, bg):
            with contextlib.suppress(shellport.Cancelled, shellport.SessionNotFound):
                f.result(30)


def test_issue11_closed_session_errors_say_closed(ort: shellport.Runtime, tmp_path: Path) -> None:
    s = ort.session(tmp_path, id="gone")
    s.close()
    with pytest.raises(shellport.SessionNotFound) as info:
        s.call("_echo", {})
    assert 'session "gone" is closed' in str(info.value)
    assert "session/new" not in str(info.value)
    assert info.value.data == {"session": "gone", "closed": True}


def test_issue11_persistent_bash_needs_a_session(prt: shellport.Runtime) -> None:
    with pytest.raises(shellport.InvalidParams, match='must name one in "session"'):
        prt._connection().call("tools/call", {"name": "bash", "arguments": {"command": "echo hi"}})


@pytest.mark.parametrize("profile", ["oneshot", "persistent"])
def test_issue10_commands_see_the_environment_as_of_session_creation(
    transport: str, profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library transport gave commands the environment the interpreter
    started with; the process transport the one the runtime process started
    with. Both now give the environment as it is when the session opens."""
    monkeypatch.setenv("SP_PRESENT_AT_OPEN", "old")
    with shellport.Runtime({"profile": profile}, transport) as rt:
        rt.tools()  # the runtime is running before the environment changes
        monkeypatch.delenv("SP_PRESENT_AT_OPEN")
        monkeypatch.delenv("HOME", raising=False)  # present when the interpreter started
        added = f"added-{uuid.uuid4().hex}"
        monkeypatch.setenv("SP_ADDED_LATER", added)
        with rt.session(tmp_path, env={"SP_FROM_ENV": "env"}) as s:
            show = "gone=[$SP_PRESENT_AT_OPEN] home=[$HOME] added=[$SP_ADDED_LATER]"
            args: dict[str, Any] = {"command": f'echo "{show} env=[$SP_FROM_ENV]"'}
            if profile == "oneshot":
                args["description"] = "show the environment"
            got = s.call("bash", args).text
    assert f"gone=[] home=[] added=[{added}] env=[env]" in got, got


def test_issue10_smuggled_argument_is_refused(ort: shellport.Runtime, tmp_path: Path) -> None:
    s = ort.session(tmp_path)
    r = s.call(
        "bash",
        {"command": "echo ok", "Command": "touch SMUGGLED", "description": "smuggle"},
    )
    assert r.is_error
    assert 'unknown argument "Command"' in r.text
    assert 'did you mean "command"' in r.text
    assert not (tmp_path / "SMUGGLED").exists()


def test_issue10_lone_surrogates_are_refused_not_rewritten(
    ort: shellport.Runtime, tmp_path: Path
) -> None:
    """encode() sends a lone surrogate as a \\u escape; the runtime refuses it
    in the same words on both transports instead of running U+FFFD."""
    s = ort.session(tmp_path)
    r = s.call("bash", {"command": "touch x\ud800", "description": "surrogate"})
    assert r.is_error
    assert "\\ud800" in r.text
    assert "nothing was run" in r.text
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(shellport.InvalidParams, match="lone UTF-16 surrogate"):
        ort.session(tmp_path, env={"BAD": "x\udcff"})


def test_issue10_close_cancels_a_call_in_flight(transport: str, tmp_path: Path) -> None:
    """rt.close() waited 5 s for shutdown whenever a call was in flight; it now
    cancels the calls first, so the call ends cancelled rather than cut off by
    the transport closing after the wait."""
    rt = shellport.Runtime(CONFIG, transport)
    s = rt.session(tmp_path)
    conn = rt._connection()
    call = start(
        rt, "tools/call", {"session": s.id, "name": "_sleep", "arguments": {"ms": 600_000}}
    )
    wait_until(lambda: conn.pending_count() == 1, "the call to be in flight")
    rt.close()
    with pytest.raises(shellport.Cancelled):
        call.result(30)


def test_issue18_max_message_bytes_from_config(transport: str, tmp_path: Path) -> None:
    """maxMessageBytes in the config reaches the runtime in initialize; the
    process transport ignored it (its reader's limit was fixed at start)."""
    big = "x" * (10 << 20)
    with shellport.Runtime({**CONFIG, "maxMessageBytes": 16 << 20}, transport) as rt:
        assert len(rt.session(tmp_path).call("_echo", {"s": big}).text) > len(big)
    small = shellport.Runtime({**CONFIG, "maxMessageBytes": 1000}, transport)
    with small, pytest.raises(shellport.MessageTooLarge, match=r"\(the limit is 1000\)"):
        small.session(tmp_path).call("_echo", {"s": "y" * 2000})


def test_pending_futures_are_settled(ort: shellport.Runtime, tmp_path: Path) -> None:
    """Sanity for the helpers above: a pipelined call resolves like a call."""
    s = ort.session(tmp_path)
    f = start(ort, "tools/call", {"session": s.id, "name": "_echo", "arguments": {"k": 1}})
    assert isinstance(f, concurrent.futures.Future)
    assert text(f.result(30)) == '{"k":1}'


def test_issue16_encoded_call_params_are_the_general_ones(
    ort: shellport.Runtime, tmp_path: Path
) -> None:
    """Session.call encodes each tool's {session, name} once and only the
    arguments per call; what reaches the runtime, and every error for
    arguments that cannot be encoded, is what the general path gives."""
    import json
    import types

    from shellport._models import call_params, encoded_call_params

    prefixes: dict[str, bytes] = {}
    for args in (None, {}, {"command": "view", "path": "/t/ü \u2028 😀", "n": [1, 2.5, None]}):
        encoded = encoded_call_params(prefixes, 's\u00e9"x', "str_replace_editor", args)
        assert encoded is not None
        assert json.loads(encoded) == call_params('s\u00e9"x', "str_replace_editor", args)
    # Anything but a plain dict, and a name that is not a str, go the general way.
    assert encoded_call_params(prefixes, "s", "t", types.MappingProxyType({"a": 1})) is None
    assert encoded_call_params(prefixes, "s", "t", [1]) is None  # type: ignore[arg-type]
    assert encoded_call_params(prefixes, "s", ["t"], {}) is None  # type: ignore[arg-type]

    (tmp_path / "f.txt").write_text("a\n")
    s = ort.session(tmp_path)
    path = str(tmp_path / "f.txt")
    plain = s.call("str_replace_editor", {"command": "view", "path": path})
    view = types.MappingProxyType({"command": "view", "path": path})
    proxied = s.call("str_replace_editor", view)
    assert plain.text == proxied.text == "     1\ta"
    assert plain == proxied
    assert plain.raw == proxied.raw
    circular: dict[str, Any] = {"command": "view"}
    circular["path"] = circular
    with pytest.raises(ValueError, match="Circular reference"):
        s.call("str_replace_editor", circular)
    with pytest.raises(TypeError, match="not JSON serializable"):
        s.call("str_replace_editor", {"command": "view", "path": object()})
    with pytest.raises(ValueError, match="Out of range float"):
        s.call("str_replace_editor", {"command": "view", "path": float("nan")})
    with pytest.raises(TypeError, match="non-empty str"):
        s.call("", {"command": "view", "path": path})
    # The session still works after every refusal: nothing half-sent.
    assert s.call("str_replace_editor", {"command": "view", "path": path}).text == "     1\ta"
