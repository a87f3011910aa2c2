"""Installing the runtime with the helpers, and the version check (issue 15).

install=True copies the bundled executable (and the spawn helper and the turn
builtin, when they ship beside it) with the platform's own tool after comparing `uname -sm` with the
files' headers; it skips a sandbox that already holds the same file, and
install="always" copies anyway. A runtime of another version is refused with
both versions named.
"""

from __future__ import annotations

import dataclasses
import os
import platform as host
import re
import shutil
import uuid
from pathlib import Path

import pytest

import shellport
from shellport import _native

from .platforms import ssh_command
from .sandboxes import PodmanContainer, SSHServer

PERSISTENT = {"profile": "persistent"}
HELPER = "shellport-spawn-helper"
TURN = "shellport-bash-turn.so"


def bundled_dir() -> Path:
    return Path(_native.find_binary(None, _native.read_settings(True)).path).parent


def test_install_into_a_fresh_container(fresh_container: PodmanContainer) -> None:
    c = fresh_container
    with pytest.raises(shellport.BinaryNotFound) as info:
        shellport.Runtime(PERSISTENT, shellport.remote.podman(c.name)).tools()
    assert "/opt/shellport/shellport" in str(info.value)
    assert "shellport.remote.podman(..., install=True)" in str(info.value)

    cmd = shellport.remote.podman(c.name, install=True)
    listing = c.exec("ls", "/opt/shellport")
    assert ("shellport-spawn-helper" in listing) == (bundled_dir() / HELPER).is_file()
    # The turn builtin goes along where it ships (Linux), and the shell in
    # the container loads it from beside the helper (issue 16).
    turn = (bundled_dir() / TURN).is_file()
    assert (TURN in listing) == turn
    # Marked old: an install that finds the same file there leaves it alone,
    # install="always" replaces it.
    with shellport.Runtime(PERSISTENT, cmd) as rt, rt.session("/ws") as s:
        assert rt.version == shellport.__version__
        assert s.call("bash", {"command": "echo $((6*7))"}).text.strip() == "42"
        loaded = s.call("bash", {"command": "type -t __sp_turn"}).text
        assert (loaded == "builtin\n") == turn, loaded
        c.exec("touch", "-t", "200001010000", cmd.executable)
        shellport.remote.podman(c.name, install=True)
        assert c.exec("stat", "-c", "%Y", cmd.executable).strip() == "946684800"
        # Replaced while a runtime runs from it.
        shellport.remote.podman(c.name, install="always")
        assert c.exec("stat", "-c", "%Y", cmd.executable).strip() != "946684800"
        assert s.call("bash", {"command": "echo still"}).text.strip() == "still"


def test_install_over_ssh(sshd: SSHServer) -> None:
    rel = f".shellport-install-{uuid.uuid4().hex[:8]}"
    path = f"{rel}/shellport"
    local = sshd.home / path
    try:
        with pytest.raises(shellport.BinaryNotFound, match="ssh\\(\\.\\.\\., install=True\\)"):
            shellport.Runtime(PERSISTENT, ssh_command(sshd, path=path)).tools()
        cmd = ssh_command(sshd, path=path, install=True)
        assert local.is_file()
        assert os.stat(local).st_uid == sshd.uid  # copied as the user, by scp
        assert (local.parent / HELPER).is_file() == (bundled_dir() / HELPER).is_file()
        with shellport.Runtime(PERSISTENT, cmd) as rt, rt.session(str(sshd.home)) as s:
            assert s.call("bash", {"command": "id -un"}).text.strip() == sshd.user
            os.utime(local, (0, 0))
            ssh_command(sshd, path=path, install=True)
            assert os.stat(local).st_mtime == 0
            # Replaced while a runtime runs from it: beside it, then renamed.
            ssh_command(sshd, path=path, install="always")
            assert os.stat(local).st_mtime != 0
            assert s.call("bash", {"command": "echo still"}).text.strip() == "still"
        shipped = [n for n in (HELPER, TURN) if (bundled_dir() / n).is_file()]
        assert sorted(p.name for p in local.parent.iterdir()) == sorted(["shellport", *shipped])
    finally:
        shutil.rmtree(sshd.home / rel, ignore_errors=True)


def test_install_through_nsenter(container: PodmanContainer) -> None:
    """nsenter into the container's namespaces; the files go in through /proc/PID/root."""
    path = f"/opt/nsenter-{uuid.uuid4().hex[:8]}/shellport"
    cmd = shellport.remote.nsenter(container.init_pid, path=path, install=True)
    assert container.exec("ls", path).strip() == path
    with shellport.Runtime(PERSISTENT, cmd) as rt, rt.session("/ws") as s:
        r = s.call("bash", {"command": "cat /etc/passwd; ls /sys/class/net"})
        assert r.text.split() == ["root:x:0:0:root:/root:/bin/bash", "lo"]  # its root, its network
        assert container.processes()
    container.exec("rm", "-r", os.path.dirname(path))


def test_install_refuses_another_architecture(container: PodmanContainer, tmp_path: Path) -> None:
    """A build for another machine is refused, naming the wheel and archive to use.

    The copy differs from the bundled executable in its ELF machine field, which
    is what the check reads (a cross build would need a compiler for it here).
    """
    other = "aarch64" if host.machine() == "x86_64" else "x86_64"
    for name in ("shellport", "shellport-spawn-helper"):
        data = bytearray((bundled_dir() / name).read_bytes())
        data[18:20] = (183 if other == "aarch64" else 62).to_bytes(2, "little")
        (tmp_path / name).write_bytes(bytes(data))
        os.chmod(tmp_path / name, 0o755)
    with pytest.raises(shellport.BinaryNotFound) as info:
        shellport.remote.podman(
            container.name, path="/opt/other/shellport", install="always", native_dir=tmp_path
        )
    message = str(info.value)
    assert f"it runs Linux {host.machine()}" in message
    assert f"built for Linux {other}" in message
    v = shellport.__version__
    goarch = "amd64" if host.machine() == "x86_64" else "arm64"
    arch = host.machine()
    assert f"shellport-{v}-py3-none-manylinux_2_17_{arch}.manylinux2014_{arch}.whl" in message
    assert f"shellport_{v}_linux_{goarch}.tar.gz" in message
    assert "native_dir=" in message


def test_install_refuses_a_linux_runtime_without_its_helper(
    container: PodmanContainer, tmp_path: Path
) -> None:
    """Issue 10: a Linux runtime starts nothing without its supervisor, so an
    install that would copy the executable alone is refused before copying."""
    (tmp_path / "shellport").write_bytes((bundled_dir() / "shellport").read_bytes())
    os.chmod(tmp_path / "shellport", 0o755)
    with pytest.raises(shellport.BinaryNotFound, match="holds no shellport-spawn-helper"):
        shellport.remote.podman(
            container.name, path="/opt/lonely/shellport", install="always", native_dir=tmp_path
        )
    assert "lonely" not in container.exec("sh", "-c", "ls /opt; true")


def test_version_mismatch_is_named(container: PodmanContainer) -> None:
    cmd = shellport.remote.podman(container.name)
    assert "--expect-version" not in cmd.argv  # checked on the handshake, not on stderr
    # A client of another version: the version the runtime reports in its
    # answer to initialize is compared.
    newer = dataclasses.replace(cmd, expect_version="9.9.9")
    expected = f"is version {shellport.__version__}, but this Python package is shellport 9.9.9"
    with pytest.raises(shellport.VersionMismatch, match=re.escape(expected)) as info:
        shellport.Runtime(PERSISTENT, newer).tools()
    assert "shellport.remote.podman(..., install=True)" in str(info.value)
    # A runtime that does not know a flag it is given (older than the
    # package) exits with its usage error, named as such even if the channel
    # lost its stderr.
    future = dataclasses.replace(cmd, argv=(*cmd.argv, "--from-the-future"))
    with pytest.raises(shellport.VersionMismatch, match="is older than this Python package"):
        shellport.Runtime(PERSISTENT, future).tools()
    # check_version=False: no check.
    lenient = shellport.remote.podman(container.name, check_version=False)
    assert lenient.expect_version is None
    with shellport.Runtime(PERSISTENT, lenient) as rt:
        assert rt.version == shellport.__version__
