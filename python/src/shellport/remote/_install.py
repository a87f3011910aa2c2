"""Putting this package's static executable (and spawn helper) into a sandbox.

The flow is the same on every platform: ask the runtime already in the
sandbox for the SHA-256 of its file (the same file as ours: done — a
version number alone would let a development build or a rebuilt wheel
keep a stale copy); ask the sandbox what it runs (``uname -sm``) and
compare with what the local files were built for (read from their headers,
not assumed); copy them with the platform's own tool; run the copy once to
prove it works there.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import _native
from .._exceptions import BinaryNotFound, TransportError
from .._version import __version__

__all__ = ["INSTALL_TIMEOUT", "Sandbox", "install", "run"]

#: Seconds one platform command (exec, cp, scp) may take before it is killed.
INSTALL_TIMEOUT = 300.0

HELPER_NAME = _native.HELPER_NAME
BASH_TURN_NAME = _native.BASH_TURN_NAME

# ELF e_machine values and Mach-O CPU types, in uname -m's spelling.
_ELF_MACHINES = {
    3: "i686",
    40: "armv7l",
    62: "x86_64",
    183: "aarch64",
    243: "riscv64",
    21: "ppc64le",
    22: "s390x",
}
_MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64"}
# uname -m spellings that name one architecture.
_SAME_ARCH = {"amd64": "x86_64", "arm64": "aarch64"}


class Sandbox:
    """One place a runtime can be installed into: how to run a command there and copy files."""

    #: Where this is, for messages: "podman container 'c1'".
    where: str = "the sandbox"

    def exec_argv(self, command: Sequence[str]) -> list[str]:
        """The argv that runs command inside, without stdin."""
        raise NotImplementedError

    def copy(self, stage: Path, names: Sequence[str], remote_dir: str) -> None:
        """Copy stage/NAME for each name into remote_dir (created if missing)."""
        raise NotImplementedError

    def system(self) -> tuple[str, str]:
        """The sandbox's kernel name and machine, as ``uname -sm`` prints them."""
        out = run(self.exec_argv(["uname", "-sm"]), f"ask {self.where} what it runs")
        words = out.split()
        if len(words) != 2:
            raise TransportError(
                f"cannot tell what {self.where} runs: `uname -sm` printed {out.strip()!r}"
            )
        return words[0], words[1]


@dataclass(frozen=True)
class _LocalFile:
    path: Path
    name: str  # its file name in the sandbox
    system: str
    machine: str


def install(sandbox: Sandbox, executable: str, native_dir: str | None, always: bool) -> None:
    """Put the runtime at executable in sandbox, unless the same file is there already.

    Raises BinaryNotFound when no local file fits the sandbox (naming the
    wheel and archive that hold the right one) and TransportError when a
    platform command fails (with what it printed).
    """
    files = _local_files(native_dir, posixpath.basename(executable))
    if not always and _remote_digest(sandbox, executable) == _digest(files[0].path):
        return
    system, machine = sandbox.system()
    for f in files:
        if (f.system, _arch(f.machine)) != (system, _arch(machine)):
            raise BinaryNotFound(
                f"cannot install shellport into {sandbox.where}: it runs {system} {machine}, "
                f"but {str(f.path)!r} is built for {f.system} {f.machine}. "
                f"{where_to_get(system, machine)}"
            )
    with tempfile.TemporaryDirectory(prefix="shellport-install-") as tmp:
        stage = Path(tmp)
        for f in files:
            shutil.copy2(f.path, stage / f.name)
            os.chmod(stage / f.name, 0o755)
        sandbox.copy(stage, [f.name for f in files], posixpath.dirname(executable) or ".")
    version, why = _remote_version(sandbox, executable)
    if version != __version__:
        raise TransportError(
            f"shellport was copied to {executable} in {sandbox.where}, but it does not run "
            f"there ({why}); a file system mounted noexec, or a path another user cannot reach?"
        )


def where_to_get(system: str, machine: str) -> str:
    """The sentence that names the wheel and release archive built for system/machine."""
    v = __version__
    arch = _arch(machine)
    hint = " Unpack either and pass the directory that holds it as native_dir=..."
    if system == "Linux" and arch in ("x86_64", "aarch64"):
        goarch = "amd64" if arch == "x86_64" else "arm64"
        return (
            f"The executable for Linux {arch} is shellport/_native/shellport in the wheel "
            f"shellport-{v}-py3-none-manylinux_2_17_{arch}.manylinux2014_{arch}.whl (or the "
            f"musllinux_1_1_{arch} one; `pip download shellport=={v} --no-deps "
            f"--only-binary=:all: --platform manylinux2014_{arch}` fetches it), and it is in "
            f"the release archive shellport_{v}_linux_{goarch}.tar.gz." + hint
        )
    if system == "Darwin" and machine in ("x86_64", "arm64"):
        goarch = "amd64" if machine == "x86_64" else "arm64"
        return (
            f"The executable for macOS {machine} is shellport/_native/shellport in the wheel "
            f"shellport-{v}-py3-none-macosx_12_0_{machine}.whl, and it is in the release "
            f"archive shellport_{v}_darwin_{goarch}.tar.gz." + hint
        )
    return (
        f"shellport is not built for {system} {machine}: its executables are for Linux "
        "(x86_64, aarch64) and macOS (x86_64, arm64)."
    )


def run(argv: Sequence[str], what: str, timeout: float = INSTALL_TIMEOUT) -> str:
    """Run a platform command; return its stdout or raise TransportError saying what failed."""
    proc = _run(argv, what, timeout)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip() or "it printed nothing"
        raise TransportError(
            f"could not {what}: `{' '.join(argv)}` exited with code {proc.returncode}: {detail}"
        )
    return proc.stdout


def _run(argv: Sequence[str], what: str, timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as exc:
        raise TransportError(f"could not {what}: {argv[0]!r} is not installed here") from exc
    except subprocess.TimeoutExpired as exc:
        raise TransportError(
            f"could not {what}: `{' '.join(argv)}` did not finish within {timeout:g} s"
        ) from exc


def _remote_digest(sandbox: Sandbox, executable: str) -> str | None:
    """The SHA-256 the sandbox's runtime reports for its own file, or None."""
    argv = sandbox.exec_argv([executable, "version", "--sha256"])
    proc = _run(argv, "ask for the digest", INSTALL_TIMEOUT)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _remote_version(sandbox: Sandbox, executable: str) -> tuple[str | None, str]:
    """The version the sandbox's runtime reports, or None and why not."""
    proc = _run(sandbox.exec_argv([executable, "version"]), "ask for the version", INSTALL_TIMEOUT)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip() or "no output"
        return None, f"`{executable} version` exited with code {proc.returncode}: {detail}"
    out = proc.stdout.strip()
    return out, f"`{executable} version` printed {out!r}"


def _local_files(native_dir: str | None, exe_name: str) -> list[_LocalFile]:
    """The executable (named exe_name there) and what ships beside it: helper, turn builtin."""
    if native_dir is None:
        exe = Path(_native.find_binary(None, _native.read_settings(True)).path)
    else:
        exe = Path(native_dir) / _native.BINARY_NAME
        if not exe.is_file():
            raise BinaryNotFound(
                f"native_dir={native_dir!r} holds no {_native.BINARY_NAME} executable; point it "
                "at the directory with the files of a shellport wheel's shellport/_native/ or a "
                "release archive"
            )
    out = [_local_file(exe, exe_name)]
    helper = exe.parent / HELPER_NAME
    if helper.is_file():
        out.append(_local_file(helper, HELPER_NAME))
    elif out[0].system == "Linux":
        # On Linux the runtime starts nothing without its supervisor: an
        # install without it would only fail later, at initialize.
        raise BinaryNotFound(
            f"{exe.parent} holds no {HELPER_NAME} beside {exe.name}; a Linux runtime runs "
            "every command under it, so both must be installed (every Linux wheel and release "
            "archive ships the two together)"
        )
    turn = exe.parent / BASH_TURN_NAME
    if out[0].system == "Linux" and turn.is_file():
        out.append(_local_file(turn, BASH_TURN_NAME))
    return out


def _local_file(path: Path, name: str) -> _LocalFile:
    system, machine = binary_platform(path)
    return _LocalFile(path, name, system, machine)


def binary_platform(path: Path) -> tuple[str, str]:
    """What an executable is built for, from its header: ("Linux", "x86_64") and so on."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError as exc:
        raise BinaryNotFound(f"cannot read {str(path)!r}: {exc}") from exc
    if head[:4] == b"\x7fELF" and len(head) >= 20:
        if head[5] == 1:
            machine = int.from_bytes(head[18:20], "little")
        else:
            machine = int.from_bytes(head[18:20], "big")
        return "Linux", _ELF_MACHINES.get(machine, f"ELF machine {machine}")
    if head[:4] == b"\xcf\xfa\xed\xfe" and len(head) >= 8:
        cpu = int.from_bytes(head[4:8], "little")
        return "Darwin", _MACHO_CPUS.get(cpu, f"Mach-O CPU {cpu:#x}")
    raise BinaryNotFound(
        f"{str(path)!r} is not an executable shellport can install (no ELF or Mach-O header)"
    )


def _arch(machine: str) -> str:
    return _SAME_ARCH.get(machine, machine)
