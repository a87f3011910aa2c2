"""The public helpers: one per platform, each returning a Command."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from typing import Callable, Literal, Union

from .. import _native
from .._version import __version__
from ._command import DEFAULT_HEARTBEAT, Command, argv_tuple, heartbeat_ms, serve_argv
from ._install import Sandbox, install
from ._sandboxes import Container, Host, Namespaces, Pod, cli_argv

__all__ = ["docker", "kubectl", "nsenter", "podman", "ssh", "unshare"]

Install = Union[bool, Literal["always"]]
StrPath = Union[str, "os.PathLike[str]"]
Cli = Union[str, Sequence[str]]

#: Where the container helpers put the runtime (and the spawn helper beside it).
CONTAINER_PATH = "/opt/shellport/shellport"
#: kubectl cp runs tar as the container's user, who can always write /tmp.
POD_PATH = "/tmp/shellport/shellport"
#: Relative to the remote user's home directory.
SSH_PATH = ".shellport/shellport"


def docker(
    container: str,
    *,
    path: str = CONTAINER_PATH,
    install: Install = False,
    native_dir: StrPath | None = None,
    user: str | None = None,
    workdir: str | None = None,
    env: Mapping[str, str] | None = None,
    heartbeat: float | None = DEFAULT_HEARTBEAT,
    check_version: bool = True,
    cli: Cli = "docker",
) -> Command:
    """Run the runtime in a running Docker container: ``docker exec -i CONTAINER PATH serve``.

    ``install=True`` first copies this package's executable (and the spawn
    helper beside it) to ``path`` with ``docker cp``, unless the same file
    is there already (the runtime there reports its SHA-256);
    ``install="always"`` copies in any case. The container must run the same OS and architecture
    as the files in ``native_dir`` (default: the ones this package bundles);
    if it does not, BinaryNotFound names the wheel and the release archive
    that hold the right ones. ``user``, ``workdir`` and ``env`` are
    ``docker exec``'s ``--user``, ``--workdir`` and ``--env``.

    ``heartbeat`` (seconds, None for off) is how long the runtime waits for
    a sign of life before it kills everything and exits; the Runtime pings
    four times as often. ``check_version=False`` accepts a runtime of
    another version. ``cli`` is the docker program (``["sudo", "docker"]``).
    """
    return _container(
        "docker",
        container,
        path,
        install,
        native_dir,
        user,
        workdir,
        env,
        heartbeat,
        check_version,
        cli,
    )


def podman(
    container: str,
    *,
    path: str = CONTAINER_PATH,
    install: Install = False,
    native_dir: StrPath | None = None,
    user: str | None = None,
    workdir: str | None = None,
    env: Mapping[str, str] | None = None,
    heartbeat: float | None = DEFAULT_HEARTBEAT,
    check_version: bool = True,
    cli: Cli = "podman",
) -> Command:
    """Run the runtime in a running Podman container: ``podman exec -i CONTAINER PATH serve``.

    The same as :func:`docker`, with ``podman cp`` for ``install``.
    """
    return _container(
        "podman",
        container,
        path,
        install,
        native_dir,
        user,
        workdir,
        env,
        heartbeat,
        check_version,
        cli,
    )


def kubectl(
    pod: str,
    container: str | None = None,
    namespace: str | None = None,
    *,
    context: str | None = None,
    kubeconfig: str | None = None,
    path: str = POD_PATH,
    install: Install = False,
    native_dir: StrPath | None = None,
    heartbeat: float | None = DEFAULT_HEARTBEAT,
    check_version: bool = True,
    cli: Cli = "kubectl",
) -> Command:
    """Run the runtime in a pod: ``kubectl exec -i POD -c CONTAINER -- PATH serve --heartbeat``.

    ``kubectl exec`` may never tell the runtime that its client went away
    (end of input is not delivered over every exec protocol, and a dropped
    connection does not kill the process), so keep the heartbeat on: it is
    what ends a runtime whose harness died. ``install=True`` copies the
    files with ``kubectl cp``, which needs ``tar`` in the container; the
    default ``path`` is under /tmp because kubectl cp writes as the
    container's user. Other arguments as for :func:`docker`.
    """
    _absolute(path, "kubectl")
    sandbox = Pod(
        cli_argv(cli, "cli"),
        pod,
        container=container,
        namespace=namespace,
        context=context,
        kubeconfig=kubeconfig,
    )
    return _finish(
        sandbox,
        "kubectl",
        path,
        install,
        native_dir,
        heartbeat,
        check_version,
        sandbox.serve_argv,
        "kubectl(..., install=True)",
    )


def ssh(
    host: str,
    *,
    user: str | None = None,
    port: int | None = None,
    identity: StrPath | None = None,
    options: Sequence[str] = (),
    path: str = SSH_PATH,
    install: Install = False,
    native_dir: StrPath | None = None,
    heartbeat: float | None = DEFAULT_HEARTBEAT,
    check_version: bool = True,
    cli: Cli = "ssh",
    scp: Cli = "scp",
) -> Command:
    """Run the runtime on another machine: ``ssh -T [USER@]HOST PATH serve``.

    ssh never prompts (``BatchMode=yes``): use a key (``identity``) or an
    agent. ``options`` are more ssh arguments, placed first so they win
    (``["-o", "StrictHostKeyChecking=accept-new"]``). A relative ``path`` is
    relative to the remote user's home (no ``~``: the command is quoted for
    the remote shell). With a heartbeat, ssh also checks the connection as
    often (``ServerAliveInterval``), so a dead network ends the channel on
    this side too. ``install=True`` copies the files with ``scp``. Other
    arguments as for :func:`docker`.
    """
    sandbox = Host(
        cli_argv(cli, "cli"),
        cli_argv(scp, "scp"),
        host,
        user=user,
        port=port,
        identity=None if identity is None else os.fspath(identity),
        options=options,
    )
    alive: list[str] = []
    if heartbeat is not None:
        seconds = max(1, heartbeat_ms(heartbeat) // 1000)
        alive = ["-o", f"ServerAliveInterval={seconds}", "-o", "ServerAliveCountMax=3"]

    def argv(command: Sequence[str]) -> list[str]:
        return sandbox.serve_argv(command, alive)

    return _finish(
        sandbox,
        "ssh",
        path,
        install,
        native_dir,
        heartbeat,
        check_version,
        argv,
        "ssh(..., install=True)",
    )


def nsenter(
    pid: int,
    *,
    namespaces: Sequence[str] = ("mount", "uts", "ipc", "net", "pid"),
    path: str = CONTAINER_PATH,
    install: Install = False,
    native_dir: StrPath | None = None,
    heartbeat: float | None = None,
    check_version: bool = True,
    cli: Cli = "nsenter",
) -> Command:
    """Run the runtime in the namespaces of process ``pid`` (a container's first process).

    ``nsenter --target PID --mount --uts --ipc --net --pid -- PATH serve``
    (root only). ``install=True`` copies the files through /proc/PID/root.
    The pipe is local and carries end of input, so the heartbeat is off by
    default.
    """
    _absolute(path, "nsenter")
    flags = [f"--{ns}" for ns in namespaces]
    sandbox = Namespaces(cli_argv(cli, "cli"), int(pid), flags)
    return _finish(
        sandbox,
        "nsenter",
        path,
        install,
        native_dir,
        heartbeat,
        check_version,
        sandbox.serve_argv,
        "nsenter(..., install=True)",
    )


def unshare(
    *,
    flags: Sequence[str] = ("--user", "--map-root-user", "--net"),
    binary: StrPath | None = None,
    heartbeat: float | None = None,
    check_version: bool = True,
    cli: Cli = "unshare",
) -> Command:
    """Run this package's executable in new namespaces: ``unshare --user --map-root-user --net``.

    Commands then see no network and run as root of their own user
    namespace (still the caller's user outside it). ``binary`` replaces the
    bundled executable. The pipe is local, so the heartbeat is off by default.
    """
    exe = _native.find_binary(binary, _native.read_settings(True)).path
    expect = __version__ if check_version else None
    hb = _heartbeat(heartbeat)
    argv = [*cli_argv(cli, "cli"), *flags, "--", *serve_argv(exe, hb)]
    return Command(
        argv_tuple(argv),
        "unshare",
        "new namespaces (unshare)",
        exe,
        expect,
        "Point binary= at an executable of this package's version.",
    )


# --- shared --------------------------------------------------------------------------


def _container(
    kind: str,
    container: str,
    path: str,
    install_: Install,
    native_dir: StrPath | None,
    user: str | None,
    workdir: str | None,
    env: Mapping[str, str] | None,
    heartbeat: float | None,
    check_version: bool,
    cli: Cli,
) -> Command:
    _absolute(path, kind)
    sandbox = Container(cli_argv(cli, "cli"), kind, container, user=user, workdir=workdir, env=env)
    return _finish(
        sandbox,
        kind,
        path,
        install_,
        native_dir,
        heartbeat,
        check_version,
        sandbox.serve_argv,
        f"{kind}(..., install=True)",
    )


def _finish(
    sandbox: Sandbox,
    platform: str,
    path: str,
    install_: Install,
    native_dir: StrPath | None,
    heartbeat: float | None,
    check_version: bool,
    argv: Callable[[Sequence[str]], list[str]],
    how: str,
) -> Command:
    if install_ not in (False, True, "always"):
        raise ValueError(f"install must be False, True or 'always', not {install_!r}")
    hb = _heartbeat(heartbeat)
    if install_:
        nd = None if native_dir is None else os.fspath(native_dir)
        install(sandbox, path, nd, always=install_ == "always")
    expect = __version__ if check_version else None
    full = argv(serve_argv(path, hb))
    hint = f"Install this package's executable there with shellport.remote.{how}."
    return Command(argv_tuple(full), platform, sandbox.where, path, expect, hint)


def _heartbeat(heartbeat: float | None) -> float | None:
    if heartbeat is not None:
        heartbeat_ms(heartbeat)  # validates
    return heartbeat


def _absolute(path: str, platform: str) -> None:
    if not posixpath.isabs(path):
        raise ValueError(f"path={path!r} must be absolute inside the {platform} sandbox")
