"""The shellport loggers and SHELLPORT_DEBUG (issue 11: logging, not raw stderr writes)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

import shellport
from conftest import CONFIG
from shellport import _debug


@pytest.fixture(autouse=True)
def _debug_off() -> Iterator[None]:
    """SHELLPORT_DEBUG attaches a handler for the whole process: take it off after."""
    yield
    _debug.disable()


def test_frames_are_debug_records_of_shellport_wire(
    transport: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="shellport")
    with shellport.Runtime(CONFIG, transport) as rt, rt.session(tmp_path) as s:
        s.call("_echo", {"marker": "m-1"})
    wire = [r for r in caplog.records if r.name == "shellport.wire"]
    assert all(r.levelno == logging.DEBUG for r in wire)
    sent = [r.getMessage() for r in wire if r.getMessage().startswith("-> ")]
    got = [r.getMessage() for r in wire if r.getMessage().startswith("<- ")]
    assert sent[0].startswith('-> {"jsonrpc":"2.0","id":1,"method":"initialize"')
    assert any('"marker":"m-1"' in m for m in sent)
    assert any('"result"' in m and "m-1" in m for m in got)
    lifecycle = [r.getMessage() for r in caplog.records if r.name == "shellport"]
    assert any(f"started over the {transport} transport" in m for m in lifecycle), lifecycle
    assert any("closed" in m for m in lifecycle), lifecycle


def test_nothing_is_logged_or_written_by_default(
    transport: str, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="shellport")
    with shellport.Runtime(CONFIG, transport) as rt:
        rt.tools()
    assert caplog.records == []
    assert capsys.readouterr().err == ""


def test_the_wire_logger_can_be_silenced_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="shellport")
    wire = logging.getLogger("shellport.wire")
    wire.setLevel(logging.INFO)
    try:
        with shellport.Runtime(CONFIG, "process") as rt:
            rt.tools()
    finally:
        wire.setLevel(logging.NOTSET)
    names = {r.name for r in caplog.records}
    assert names == {"shellport"}


def test_auto_says_why_it_did_not_load_the_library(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="shellport")
    monkeypatch.setenv("SHELLPORT_TRANSPORT", "process")
    with shellport.Runtime(CONFIG) as rt:
        assert rt.transport_name == "process"
    assert any("SHELLPORT_TRANSPORT=process" in r.getMessage() for r in caplog.records)


def test_debug_wire_writes_frames_to_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The value that worked before issue 11 still does.
    monkeypatch.setenv("SHELLPORT_DEBUG", "wire")
    with shellport.Runtime(CONFIG, "process") as rt:
        rt.tools()
    err = capsys.readouterr().err
    assert 'shellport.wire: -> {"jsonrpc":"2.0","id":1,"method":"initialize"' in err
    assert 'shellport.wire: <- {"jsonrpc":"2.0","id":1,"result"' in err
    assert '"method":"tools/list"' in err
    assert "shellport: runtime 0.1.0 started over the process transport" in err


@pytest.mark.parametrize("value", ["1", "true", "yes", "on", "debug", "DEBUG"])
def test_debug_1_logs_the_lifecycle_without_frames(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 11: SHELLPORT_DEBUG=1 used to raise at Runtime().
    monkeypatch.setenv("SHELLPORT_DEBUG", value)
    with shellport.Runtime(CONFIG, "process") as rt:
        rt.tools()
    err = capsys.readouterr().err
    assert "shellport: runtime 0.1.0 started over the process transport" in err
    assert "shellport: the runtime over the process transport is closed" in err
    assert "shellport.wire" not in err


@pytest.mark.parametrize("value", ["", "0", "false", "no", "off"])
def test_debug_off_values(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SHELLPORT_DEBUG", value)
    with shellport.Runtime(CONFIG, "process") as rt:
        rt.tools()
    assert capsys.readouterr().err == ""


def test_unknown_debug_value_fails_naming_the_values_that_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SHELLPORT_DEBUG", "everything")
    with pytest.raises(shellport.ShellportError, match=r"SHELLPORT_DEBUG='everything'.*1.*wire"):
        shellport.Runtime(CONFIG)


def test_trust_env_false_ignores_debug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SHELLPORT_DEBUG", "wire")
    with shellport.Runtime(CONFIG, "process", trust_env=False) as rt:
        rt.tools()
    assert capsys.readouterr().err == ""
