"""The command lines shellport.remote builds, and what it refuses (issue 15).

Kubernetes cannot run here, so kubectl's argv is checked exactly; the relay in
tests/remote/kubectl_standin.py parses the same argv and runs it, and
tests/remote/test_heartbeat.py checks the liveness it relies on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import shellport
from conftest import binary_path
from shellport import _native
from shellport.remote import _install

V = shellport.__version__
SERVE = ["serve", "--heartbeat", "10s"]


def test_docker_and_podman() -> None:
    cmd = shellport.remote.docker("c1")
    assert list(cmd.argv) == ["docker", "exec", "-i", "c1", "/opt/shellport/shellport", *SERVE]
    assert (cmd.platform, cmd.where, cmd.executable) == (
        "docker",
        "docker container 'c1'",
        "/opt/shellport/shellport",
    )
    cmd = shellport.remote.podman(
        "c2",
        path="/usr/local/bin/shellport",
        user="app",
        workdir="/src",
        env={"CI": "1"},
        heartbeat=2.5,
        check_version=False,
        cli=["sudo", "podman"],
    )
    assert list(cmd.argv) == [
        "sudo", "podman", "exec", "-i", "--user", "app", "--workdir", "/src", "--env", "CI=1",
        "c2", "/usr/local/bin/shellport", "serve", "--heartbeat", "2500ms",
    ]  # fmt: skip
    assert cmd.expect_version is None
    assert "--heartbeat" not in shellport.remote.docker("c", heartbeat=None).argv


def test_kubectl() -> None:
    cmd = shellport.remote.kubectl("web-0")
    assert list(cmd.argv) == [
        "kubectl", "exec", "-i", "web-0", "--", "/tmp/shellport/shellport", *SERVE,
    ]  # fmt: skip
    cmd = shellport.remote.kubectl(
        "web-0", "main", "rollouts", context="kind-a", kubeconfig="/k/config", heartbeat=30
    )
    assert list(cmd.argv) == [
        "kubectl", "--kubeconfig", "/k/config", "--context", "kind-a", "--namespace",
        "rollouts", "exec", "-i", "web-0", "-c", "main", "--",
        "/tmp/shellport/shellport", "serve", "--heartbeat", "30s",
    ]  # fmt: skip
    assert cmd.where == "container 'main' of pod rollouts/web-0"
    # The install step's commands, through the same sandbox.
    from shellport.remote._sandboxes import Pod

    pod = Pod(["kubectl"], "web-0", container="main", namespace="rollouts")
    assert pod.exec_argv(["uname", "-sm"]) == [
        "kubectl", "--namespace", "rollouts", "exec", "web-0", "-c", "main", "--", "uname", "-sm",
    ]  # fmt: skip


def test_ssh_quotes_for_the_remote_shell() -> None:
    cmd = shellport.remote.ssh(
        "build.example",
        user="ci",
        port=2222,
        identity="/keys/id",
        options=["-o", "StrictHostKeyChecking=accept-new"],
        path="tools dir/shellport",
        heartbeat=10,
    )
    assert list(cmd.argv) == [
        "ssh", "-T", "-o", "StrictHostKeyChecking=accept-new", "-o", "BatchMode=yes",
        "-i", "/keys/id", "-p", "2222",
        "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3",
        "ci@build.example",
        "'tools dir/shellport' serve --heartbeat 10s",
    ]  # fmt: skip
    assert cmd.where == "host 'ci@build.example' (port 2222)"
    from shellport.remote._sandboxes import Host

    h = Host(["ssh"], ["scp"], "fe80::1", user="u")
    assert h.scp_dest == "u@[fe80::1]"


def test_nsenter_and_unshare() -> None:
    cmd = shellport.remote.nsenter(4242)
    assert list(cmd.argv) == [
        "nsenter", "--target", "4242", "--mount", "--uts", "--ipc", "--net", "--pid", "--",
        "/opt/shellport/shellport", "serve",
    ]  # fmt: skip
    exe = binary_path()
    cmd = shellport.remote.unshare()
    assert list(cmd.argv) == [
        "unshare", "--user", "--map-root-user", "--net", "--",
        str(Path(exe).resolve()), "serve",
    ]  # fmt: skip


def test_arguments_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="must be absolute inside the docker sandbox"):
        shellport.remote.docker("c", path="bin/shellport")
    with pytest.raises(ValueError, match=r"heartbeat=0\.05 is too short"):
        shellport.remote.podman("c", heartbeat=0.05)
    with pytest.raises(TypeError, match="heartbeat must be a number"):
        shellport.remote.podman("c", heartbeat="10s")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="install must be False, True or 'always'"):
        shellport.remote.podman("c", install="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cli= must name a program"):
        shellport.remote.docker("c", cli=[])
    with pytest.raises(TypeError, match="non-empty tuple of strings"):
        shellport.remote.Command((), "x", "y", "/z")


def test_runtime_takes_a_command(tmp_path: Path) -> None:
    """A Command made by hand for the local executable: any argv can be one."""
    exe = binary_path()
    cmd = shellport.remote.Command(
        (exe, "serve", "--heartbeat", "1s"), "local", "this machine", exe
    )
    with shellport.Runtime({"testTools": True}, cmd) as rt:
        assert rt.transport_name == "local"
        # Pings every 250 ms keep alive a runtime that ends after 1 s of
        # silence, through a call that says nothing for longer.
        s = rt.session(tmp_path)
        assert s.call("_sleep", {"ms": 2500}).text == "slept"


def test_refusals_are_explained() -> None:
    """What the runtime says on stderr when it will not start, as the Runtime tells it."""
    exe = binary_path()
    refuses = shellport.remote.Command(
        (exe, "serve", "--expect-version", "9.9.9"), "local", "this machine", exe, "9.9.9"
    )
    with pytest.raises(shellport.VersionMismatch) as info:
        shellport.Runtime({}, refuses).tools()
    assert "refused to serve shellport 9.9.9" in str(info.value)
    assert f'this executable is version "{V}"' in str(info.value)
    older = shellport.remote.Command((exe, "serve", "--from-the-future"), "local", "here", exe)
    with pytest.raises(shellport.VersionMismatch) as info:
        shellport.Runtime({}, older).tools()
    message = str(info.value)
    assert f"is older than this Python package (shellport {V})" in message
    assert 'shellport serve: unknown flag "--from-the-future"' in message
    missing = shellport.remote.Command(("/bin/sh", "-c", "exit 127"), "local", "here", "/nowhere")
    with pytest.raises(
        shellport.BinaryNotFound, match="cannot start the shellport runtime in here"
    ):
        shellport.Runtime({}, missing).tools()


def test_where_to_get_names_wheels_and_archives() -> None:
    text = _install.where_to_get("Linux", "aarch64")
    assert f"shellport-{V}-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl" in text
    assert f"shellport_{V}_linux_arm64.tar.gz" in text
    text = _install.where_to_get("Darwin", "arm64")
    assert f"shellport-{V}-py3-none-macosx_12_0_arm64.whl" in text
    assert f"shellport_{V}_darwin_arm64.tar.gz" in text
    assert "not built for FreeBSD amd64" in _install.where_to_get("FreeBSD", "amd64")


def test_binary_platform_reads_the_header(tmp_path: Path) -> None:
    import platform

    exe = _native.find_binary(None, _native.read_settings(True)).path
    assert _install.binary_platform(Path(exe)) == ("Linux", platform.machine())
    script = tmp_path / "shellport"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(shellport.BinaryNotFound, match="no ELF or Mach-O header"):
        _install.binary_platform(script)
