"""Bad input on both transports: each gets a clear error and the runtime keeps serving."""

from __future__ import annotations

import pytest

import shellport


def _still_serving(session: shellport.Session) -> None:
    assert session.call("_echo", {"ok": True}).text == '{"ok":true}'


def test_unknown_tool(session: shellport.Session) -> None:
    with pytest.raises(shellport.UnknownTool, match='unknown tool "no_such_tool"') as info:
        session.call("no_such_tool", {})
    assert info.value.code == -32002
    assert "_echo" in info.value.message  # it lists what exists
    _still_serving(session)


def test_arguments_must_be_an_object(session: shellport.Session) -> None:
    with pytest.raises(shellport.InvalidParams, match="must be an object"):
        session.call("_echo", ["not", "an", "object"])  # type: ignore[arg-type]
    _still_serving(session)


def test_wrong_argument_types_are_a_result(session: shellport.Session) -> None:
    # A tool rejecting its arguments is a result the model reads, not an exception.
    r = session.call("_sleep", {"ms": "soon"})
    assert r.is_error is True
    assert "ms" in r.text
    _still_serving(session)


def test_nul_in_arguments_is_a_result(session: shellport.Session) -> None:
    r = session.call("_echo", {"text": "a\x00b"})
    assert r.is_error is True
    assert "NUL" in r.text
    # An escaped backslash followed by u0000 is not a NUL.
    assert session.call("_echo", {"text": "a\\u0000b"}).is_error is False
    _still_serving(session)


def test_nul_in_session_env(rt: shellport.Runtime, tmp_path: object) -> None:
    with pytest.raises(shellport.InvalidParams, match="NUL"):
        rt.session(str(tmp_path), env={"BAD": "a\x00b"})


def test_ten_megabyte_message(session: shellport.Session) -> None:
    with pytest.raises(shellport.MessageTooLarge, match="too large") as info:
        session.call("_echo", {"blob": "x" * (10 << 20)})
    assert info.value.code == -32004
    _still_serving(session)


def test_panicking_tool_is_an_internal_error(session: shellport.Session) -> None:
    with pytest.raises(shellport.InternalError, match="panic") as info:
        session.call("_panic", {})
    assert info.value.code == -32603
    _still_serving(session)
    with pytest.raises(shellport.InternalError):
        session.call("_panic", {})
    _still_serving(session)


def test_bad_config_is_a_config_error(transport: str) -> None:
    rt = shellport.Runtime({"profile": "nope"}, transport)
    with pytest.raises(shellport.ConfigError, match='unknown profile "nope"') as info:
        rt.session("/")
    assert info.value.code == -32005
    rt.close()
    with pytest.raises(shellport.ConfigError, match="maxTimeout"):
        shellport.Runtime({"maxTimeout": 3}, transport).session("/")


def test_rpc_errors_are_shellport_errors(session: shellport.Session) -> None:
    with pytest.raises(shellport.RPCError):
        session.call("no_such_tool", {})
    with pytest.raises(shellport.ShellportError):
        session.call("no_such_tool", {})


def test_bad_transport_arguments() -> None:
    with pytest.raises(ValueError, match="transport='ffi'"):
        shellport.Runtime(transport="ffi")
    with pytest.raises(TypeError):
        shellport.Runtime(transport=[])
    with pytest.raises(TypeError, match="config must be a mapping"):
        shellport.Runtime(config="profile=persistent")  # type: ignore[arg-type]
