"""Finding the native files, and every SHELLPORT_* environment variable."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import shellport
from conftest import CONFIG, binary_path, library_path
from shellport import _native
from shellport._client import Connection
from shellport._transports import cdll
from shellport._transports.selection import Chosen


def test_binary_override_that_points_at_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELLPORT_BINARY_PATH", "/nowhere/shellport")
    with pytest.raises(
        shellport.BinaryNotFound, match=r"SHELLPORT_BINARY_PATH.*/nowhere/shellport"
    ):
        shellport.Runtime(CONFIG, "process").tools()


def test_library_override_that_points_at_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELLPORT_LIBRARY_PATH", "/nowhere/libshellport.so")
    for transport in ("library", "auto"):
        with pytest.raises(shellport.LibraryNotFound, match=r"SHELLPORT_LIBRARY_PATH.*/nowhere"):
            shellport.Runtime(CONFIG, transport).tools()


def test_trust_env_false_ignores_every_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    real = binary_path()
    monkeypatch.setenv("SHELLPORT_BINARY_PATH", "/nowhere/shellport")
    monkeypatch.setenv("SHELLPORT_LIBRARY_PATH", "/nowhere/libshellport.so")
    monkeypatch.setenv("SHELLPORT_TRANSPORT", "nonsense")
    monkeypatch.setenv("SHELLPORT_DEBUG", "nonsense")
    with shellport.Runtime(CONFIG, "process", trust_env=False, binary_path=real) as rt:
        assert rt.version == shellport.__version__


def test_explicit_path_beats_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    real = binary_path()
    monkeypatch.setenv("SHELLPORT_BINARY_PATH", "/nowhere/shellport")
    with shellport.Runtime(CONFIG, "process", binary_path=real) as rt:
        assert rt.transport_name == "process"


def test_explicit_path_that_points_at_nothing() -> None:
    with pytest.raises(shellport.BinaryNotFound, match="/nowhere/shellport"):
        shellport.Runtime(CONFIG, "process", binary_path="/nowhere/shellport").tools()


def test_transport_variable_steers_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELLPORT_TRANSPORT", "process")
    with shellport.Runtime(CONFIG) as rt:
        assert rt.transport_name == "process"
    # An explicit transport wins over the variable.
    if _native.library_supported() is None:
        library_path()
        with shellport.Runtime(CONFIG, "library") as rt:
            assert rt.transport_name == "library"


def test_bad_transport_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELLPORT_TRANSPORT", "ffi")
    with pytest.raises(shellport.ShellportError, match="SHELLPORT_TRANSPORT='ffi'"):
        shellport.Runtime(CONFIG)


def test_missing_bundled_file_names_the_platform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_native, "NATIVE_DIR", tmp_path)
    with pytest.raises(shellport.BinaryNotFound) as info:
        _native.find_binary(None, _native.Settings())
    message = str(info.value)
    assert _native.platform_tag() in message
    assert "copied between machines" in message
    assert "SHELLPORT_BINARY_PATH" in message
    with pytest.raises(shellport.LibraryNotFound, match=_native.platform_tag()):
        _native.find_library(None, _native.Settings())


def test_executable_for_another_platform(tmp_path: Path) -> None:
    foreign = tmp_path / "shellport"
    foreign.write_bytes(b"\xcf\xfa\xed\xfe" + b"\0" * 64)  # a Mach-O header, not runnable here
    foreign.chmod(0o755)
    with pytest.raises(shellport.BinaryNotFound, match="another platform"):
        shellport.Runtime(CONFIG, "process", binary_path=foreign).tools()


def test_library_for_another_platform(tmp_path: Path) -> None:
    foreign = tmp_path / "libshellport.so"
    foreign.write_bytes(b"\xcf\xfa\xed\xfe" + b"\0" * 64)
    with pytest.raises(shellport.LibraryNotFound, match="another platform"):
        cdll._Library(str(foreign))


def test_execute_bit_is_restored(tmp_path: Path) -> None:
    copy = tmp_path / "shellport"
    shutil.copyfile(binary_path(), copy)
    copy.chmod(0o644)
    helper = tmp_path / _native.HELPER_NAME
    shutil.copyfile(Path(binary_path()).parent / _native.HELPER_NAME, helper)
    helper.chmod(0o644)
    with shellport.Runtime(CONFIG, "process", binary_path=copy) as rt:
        assert rt.version == shellport.__version__
        with rt.session(tmp_path) as s:  # commands start through the helper beside the copy
            assert s.call("bash", {"command": "echo ok", "description": "Say ok"}).text == "ok\n"
    assert os.access(copy, os.X_OK)
    assert os.access(helper, os.X_OK)


def test_one_library_per_process(tmp_path: Path) -> None:
    if _native.library_supported() is not None:
        pytest.skip(f"library transport unavailable: {_native.library_supported()}")
    with shellport.Runtime(CONFIG, "library", library_path=library_path()) as rt:
        rt.tools()
    other = tmp_path / "libshellport.so"
    shutil.copyfile(library_path(), other)
    with pytest.raises(shellport.TransportError, match="only one Go runtime"):
        shellport.Runtime(CONFIG, "library", library_path=other).tools()


def test_bundled_version_must_match() -> None:
    def answer(msg: dict[str, object]) -> dict[str, object] | None:
        if msg["method"] != "initialize":
            return {"jsonrpc": "2.0", "id": msg["id"], "result": {}}
        info = {"protocolVersion": 1, "serverInfo": {"name": "shellport", "version": "9.9.9"}}
        return {"jsonrpc": "2.0", "id": msg["id"], "result": {**info, "profile": "x", "tools": []}}

    transport = shellport.MockTransport(answer)
    conn = Connection(transport)
    try:
        with pytest.raises(shellport.VersionMismatch, match=r"9\.9\.9.*0\.1\.0"):
            shellport.Runtime()._initialize(conn, Chosen(transport, bundled=True))
        # Not for a runtime the caller chose (docker exec, an override).
        assert shellport.Runtime()._initialize(conn, Chosen(transport))["profile"] == "x"
    finally:
        conn.close()


def test_trust_env_false_keeps_spawn_helper_from_the_executable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A helper path that does not exist would fail initialize if the runtime
    # saw it; with trust_env=False the process transport must not pass it on.
    monkeypatch.setenv("SHELLPORT_SPAWN_HELPER", str(tmp_path / "no-such-helper"))
    config = {"profile": "persistent"}
    trusting = shellport.Runtime(config, transport="process", binary_path=binary_path())
    with pytest.raises(shellport.ConfigError, match="no-such-helper"), trusting:
        trusting.tools()
    rt = shellport.Runtime(config, transport="process", binary_path=binary_path(), trust_env=False)
    with rt, rt.session(tmp_path) as s:
        assert s.call("bash", {"command": "echo ok"}).text.strip() == "ok"
