"""How each platform runs a command in its sandbox and copies files into it."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._install import Sandbox, run

__all__ = ["Container", "Host", "Namespaces", "Pod", "cli_argv"]


def cli_argv(cli: str | Sequence[str], name: str) -> list[str]:
    """The platform's command line tool as an argv prefix ("docker", ["sudo", "podman"])."""
    argv = [cli] if isinstance(cli, str) else [str(a) for a in cli]
    if not argv or not all(argv):
        raise ValueError(f"{name}= must name a program (a string or a non-empty list), not {cli!r}")
    return argv


class Container(Sandbox):
    """A running Docker or Podman container: ``exec`` and ``cp``."""

    def __init__(
        self,
        cli: list[str],
        kind: str,
        container: str,
        *,
        user: str | None = None,
        workdir: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.cli, self.container = cli, container
        self.where = f"{kind} container {container!r}"
        self.options: list[str] = []
        if user is not None:
            self.options += ["--user", user]
        if workdir is not None:
            self.options += ["--workdir", workdir]
        for key, value in (env or {}).items():
            self.options += ["--env", f"{key}={value}"]

    def serve_argv(self, command: Sequence[str]) -> list[str]:
        """``exec -i``: stdin stays open, and no terminal (it would mangle the protocol)."""
        return [*self.cli, "exec", "-i", *self.options, self.container, *command]

    def exec_argv(self, command: Sequence[str]) -> list[str]:
        return [*self.cli, "exec", *self.options, self.container, *command]

    def copy(self, stage: Path, names: Sequence[str], remote_dir: str) -> None:
        # SRC/. copies the directory's content and creates the last component
        # of the destination, with no mkdir needed inside the image.
        run(
            [*self.cli, "cp", f"{stage}/.", f"{self.container}:{remote_dir}"],
            f"copy shellport into {self.where}",
        )


class Pod(Sandbox):
    """A container of a Kubernetes pod: ``kubectl exec``, and ``kubectl cp`` (tar inside)."""

    def __init__(
        self,
        cli: list[str],
        pod: str,
        *,
        container: str | None = None,
        namespace: str | None = None,
        context: str | None = None,
        kubeconfig: str | None = None,
    ) -> None:
        self.pod = pod
        self.base = list(cli)
        if kubeconfig is not None:
            self.base += ["--kubeconfig", kubeconfig]
        if context is not None:
            self.base += ["--context", context]
        if namespace is not None:
            self.base += ["--namespace", namespace]
        self.target = ["-c", container] if container is not None else []
        where = f"pod {pod!r}" if namespace is None else f"pod {namespace}/{pod}"
        self.where = f"container {container!r} of {where}" if container is not None else where

    def serve_argv(self, command: Sequence[str]) -> list[str]:
        return [*self.base, "exec", "-i", self.pod, *self.target, "--", *command]

    def exec_argv(self, command: Sequence[str]) -> list[str]:
        return [*self.base, "exec", self.pod, *self.target, "--", *command]

    def copy(self, stage: Path, names: Sequence[str], remote_dir: str) -> None:
        # File to file: kubectl cp's directory rules differ between versions.
        run(self.exec_argv(["mkdir", "-p", remote_dir]), f"create {remote_dir} in {self.where}")
        for name in names:
            run(
                [
                    *self.base,
                    "cp",
                    str(stage / name),
                    f"{self.pod}:{remote_dir}/{name}",
                    *self.target,
                ],
                f"copy {name} into {self.where}",
            )


class Host(Sandbox):
    """A machine reached with ssh (commands run by the login shell) and scp."""

    def __init__(
        self,
        ssh: list[str],
        scp: list[str],
        host: str,
        *,
        user: str | None = None,
        port: int | None = None,
        identity: str | None = None,
        options: Sequence[str] = (),
    ) -> None:
        self.ssh, self.scp = ssh, scp
        self.dest = f"{user}@{host}" if user else host
        # scp needs an IPv6 literal in brackets before the ":path".
        self.scp_dest = f"{user + '@' if user else ''}{'[' + host + ']' if ':' in host else host}"
        self.where = f"host {self.dest!r}" + (f" (port {port})" if port is not None else "")
        common = [*options, "-o", "BatchMode=yes"]
        if identity is not None:
            common += ["-i", identity]
        self.ssh_options = list(common)
        self.scp_options = list(common)
        if port is not None:
            self.ssh_options += ["-p", str(port)]
            self.scp_options += ["-P", str(port)]

    def serve_argv(self, command: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
        # ssh joins its arguments into one line for the remote shell: quote them.
        return [*self.ssh, "-T", *self.ssh_options, *extra, self.dest, shlex.join(command)]

    def exec_argv(self, command: Sequence[str]) -> list[str]:
        return self.serve_argv(command)

    def copy(self, stage: Path, names: Sequence[str], remote_dir: str) -> None:
        # scp writes into an existing file, which fails ("text file busy")
        # while a runtime runs from it: copy beside it, then rename.
        for name in names:
            os.link(stage / name, stage / f".{name}.new")
        run(self.exec_argv(["mkdir", "-p", remote_dir]), f"create {remote_dir} on {self.where}")
        run(
            [
                *self.scp,
                "-q",
                *self.scp_options,
                *(str(stage / f".{n}.new") for n in names),
                f"{self.scp_dest}:{remote_dir}/",
            ],
            f"copy shellport to {self.where}",
        )
        renames = " && ".join(
            shlex.join(["mv", "-f", f"{remote_dir}/.{n}.new", f"{remote_dir}/{n}"]) for n in names
        )
        run([*self.ssh, "-T", *self.ssh_options, self.dest, renames], f"install on {self.where}")


class Namespaces(Sandbox):
    """The namespaces of a process on this machine (a container's init): ``nsenter``.

    Files are copied through /proc/PID/root, the process's view of the file
    system, so nothing is needed inside; the kernel, and so the machine, is
    this one's.
    """

    def __init__(self, cli: list[str], pid: int, flags: Sequence[str]) -> None:
        self.cli, self.pid, self.flags = cli, pid, list(flags)
        self.where = f"the namespaces of process {pid}"

    def serve_argv(self, command: Sequence[str]) -> list[str]:
        return [*self.cli, "--target", str(self.pid), *self.flags, "--", *command]

    def exec_argv(self, command: Sequence[str]) -> list[str]:
        return self.serve_argv(command)

    def copy(self, stage: Path, names: Sequence[str], remote_dir: str) -> None:
        root = Path(f"/proc/{self.pid}/root")
        target = root / remote_dir.lstrip("/")
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            # Beside, then renamed: a runtime of another version may be running.
            tmp = target / f".{name}.{os.getpid()}"
            shutil.copy2(stage / name, tmp)
            os.replace(tmp, target / name)

    def system(self) -> tuple[str, str]:
        u = os.uname()
        return u.sysname, u.machine
