"""Fixtures of the remote tests: the sandboxes, started once per run, and the
platforms the same checks run on (podman, ssh, unshare).

A sandbox that cannot start skips its tests with the reason (pytest -rs prints
it); with --require-remote, as in .ci/run, it fails them instead.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import shellport

from .platforms import Platform, in_net_namespace_of, ssh_command
from .sandboxes import PodmanContainer, SSHServer, Unavailable, build_rootfs, podman_problem


def unavailable(request: pytest.FixtureRequest, why: str) -> None:
    """Skip (or, under --require-remote, fail) because a sandbox cannot start."""
    if request.config.getoption("--require-remote"):
        pytest.fail(f"a remote sandbox cannot start here (--require-remote): {why}", False)
    pytest.skip(f"remote sandbox unavailable: {why}")


@pytest.fixture(scope="session")
def rootfs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A container root built here: static busybox, bash and its libraries."""
    problem = podman_problem()
    if problem is not None:
        unavailable(request, problem)
    try:
        return build_rootfs(tmp_path_factory.mktemp("rootfs") / "root")
    except Unavailable as exc:
        unavailable(request, str(exc))
        raise


def start_container(request: pytest.FixtureRequest, rootfs: Path) -> PodmanContainer:
    try:
        return PodmanContainer(rootfs)
    except Unavailable as exc:
        unavailable(request, str(exc))
        raise


@pytest.fixture(scope="session")
def container(request: pytest.FixtureRequest, rootfs: Path) -> Iterator[PodmanContainer]:
    """One container for the checks, with the runtime installed by the helper."""
    c = start_container(request, rootfs)
    try:
        shellport.remote.podman(c.name, install=True)
        yield c
    finally:
        c.close()


@pytest.fixture
def fresh_container(request: pytest.FixtureRequest, rootfs: Path) -> Iterator[PodmanContainer]:
    """A container of its own, without the runtime."""
    c = start_container(request, rootfs)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="session")
def sshd(request: pytest.FixtureRequest) -> Iterator[SSHServer]:
    """sshd on 127.0.0.1 for the throw-away user shellport-test."""
    try:
        server = SSHServer()
    except Unavailable as exc:
        unavailable(request, str(exc))
        raise
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def ssh_path(sshd: SSHServer) -> Iterator[str]:
    """The runtime installed by the helper in the user's home, for this run only."""
    rel = f".shellport-test-{uuid.uuid4().hex[:8]}"
    path = f"{rel}/shellport"
    ssh_command(sshd, path=path, install=True)
    try:
        yield path
    finally:
        shutil.rmtree(sshd.home / rel, ignore_errors=True)


@pytest.fixture(params=["podman", "ssh", "unshare"])
def platform(request: pytest.FixtureRequest, tmp_path: Path) -> Platform:
    """Each platform the checks run on, its sandbox started on first use."""
    name: str = request.param
    if name == "podman":
        c: PodmanContainer = request.getfixturevalue("container")

        def podman(**kw: Any) -> shellport.remote.Command:
            return shellport.remote.podman(c.name, **kw)

        return Platform(name, podman, "/ws", lambda rt: c.processes)
    if name == "ssh":
        server: SSHServer = request.getfixturevalue("sshd")
        path: str = request.getfixturevalue("ssh_path")

        def ssh(**kw: Any) -> shellport.remote.Command:
            return ssh_command(server, path=path, **kw)

        return Platform(name, ssh, str(server.home), lambda rt: server.processes)
    if shutil.which("unshare") is None:
        unavailable(request, "unshare is not installed (Debian package util-linux)")
    os.chmod(tmp_path, 0o755)
    return Platform(name, shellport.remote.unshare, str(tmp_path), in_net_namespace_of)
