"""Real sandboxes for the remote tests (issue 15): a Podman container on a rootfs built
here, an sshd on 127.0.0.1 with a throw-away user, and the /proc views that count
what runs in them.

Nothing is pulled from a registry: the container's root file system is built from
this machine's static busybox and bash (with the libraries ldd names). Each start
either works or raises Unavailable with what failed, which the fixtures turn into
a skip (or a failure under --require-remote).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Callable

#: Bounds every wait here. A hang guard, never a speed assertion.
WAIT = 60.0
#: Bounds every platform command (podman run, useradd).
COMMAND_TIMEOUT = 120.0

SSH_USER = "shellport-test"
RUNC = "runc"  # crun fails on this kind of machine ("cgroups in hybrid mode")


class Unavailable(Exception):
    """A component the remote tests need cannot start here; the message says why."""


def wait_until(predicate: Callable[[], bool], what: str, limit: float = WAIT) -> None:
    """Poll until predicate holds; the limit only guards against a hang."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.02)


def run(argv: list[str], what: str, timeout: float = COMMAND_TIMEOUT) -> str:
    """Run a setup command; raise Unavailable with its output when it fails."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError as exc:
        raise Unavailable(f"{what}: {argv[0]} is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"{what}: `{' '.join(argv)}` took over {timeout:g} s") from exc
    if proc.returncode != 0:
        out = (proc.stderr or proc.stdout).strip()
        raise Unavailable(f"{what}: `{' '.join(argv)}` exited {proc.returncode}: {out}")
    return proc.stdout


# --- processes -------------------------------------------------------------------------


def _pids() -> Iterable[int]:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            yield int(entry)


def _state(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def alive(pid: int) -> bool:
    """Whether pid runs (a zombie has died already)."""
    return _state(pid) not in (None, "Z", "X")


def with_token(token: str) -> list[int]:
    """Live processes whose environment holds token (what a session started)."""
    out = []
    needle = token.encode()
    for pid in _pids():
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if needle in env and alive(pid):
            out.append(pid)
    return out


def in_pid_namespace(init_pid: int) -> list[int]:
    """Live processes in init_pid's pid namespace, other than init_pid itself."""
    try:
        ns = os.readlink(f"/proc/{init_pid}/ns/pid")
    except OSError:
        return []
    out = []
    for pid in _pids():
        if pid == init_pid:
            continue
        try:
            if os.readlink(f"/proc/{pid}/ns/pid") == ns and alive(pid):
                out.append(pid)
        except OSError:
            continue
    return out


def of_user(uid: int, but: Iterable[str] = ("sshd",)) -> list[int]:
    """Live processes of uid, except those whose command name is in but."""
    out = []
    skip = set(but)
    for pid in _pids():
        try:
            st = os.stat(f"/proc/{pid}")
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if st.st_uid == uid and comm not in skip and alive(pid):
            out.append(pid)
    return out


def describe(pids: Iterable[int]) -> str:
    """pid: command line, for failure messages."""
    rows = []
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            cmd = "?"
        rows.append(f"{pid}: {cmd.strip()}")
    return "; ".join(rows) or "none"


# --- a root file system for containers -----------------------------------------------


def build_rootfs(root: Path) -> Path:
    """A minimal root: static busybox with every applet, bash and its libraries."""
    busybox = shutil.which("busybox")
    if busybox is None:
        raise Unavailable("no busybox here (Debian package busybox-static)")
    linkage = _ldd(busybox)
    if "not a dynamic executable" not in linkage and "statically linked" not in linkage:
        raise Unavailable(f"{busybox} is not static (install busybox-static)")
    bash = shutil.which("bash")
    assert bash is not None
    (root / "bin").mkdir(parents=True)
    shutil.copy2(busybox, root / "bin" / "busybox")
    shutil.copy2(bash, root / "bin" / "bash")
    for applet in run([busybox, "--list"], "list busybox applets").split():
        link = root / "bin" / applet
        if not link.exists():
            link.symlink_to("busybox")
    for lib in _libraries(bash):
        dest = root / lib.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(lib, dest)
    for d in ("etc", "proc", "sys", "dev", "ws", "opt", "root"):
        (root / d).mkdir(exist_ok=True)
    (root / "tmp").mkdir(mode=0o1777)
    os.chmod(root / "tmp", 0o1777)
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "etc" / "group").write_text("root:x:0:\n")
    return root


def _ldd(path: str) -> str:
    proc = subprocess.run(["ldd", path], capture_output=True, text=True, check=False)
    return proc.stdout + proc.stderr


def _libraries(path: str) -> list[str]:
    libs = []
    for line in _ldd(path).splitlines():
        words = line.split()
        for w in words:
            if w.startswith("/") and os.path.exists(w):
                libs.append(w)
    return libs


# --- podman ------------------------------------------------------------------------------


class PodmanContainer:
    """A running container on an overlay of the shared rootfs; removed by close()."""

    def __init__(self, rootfs: Path) -> None:
        self.name = f"shellport-test-{uuid.uuid4().hex[:10]}"
        run(
            [
                "podman",
                "run",
                "-d",
                "--name",
                self.name,
                "--runtime",
                RUNC,
                "--ulimit",
                "nofile=4096:4096",
                "--ulimit",
                "nproc=4096:4096",
                "--network",
                "none",
                "--rootfs",
                f"{rootfs}:O",
                "/bin/sleep",
                "1000000000",
            ],
            "start a podman container",
        )
        try:
            pid = run(["podman", "inspect", "-f", "{{.State.Pid}}", self.name], "find its pid")
            self.init_pid = int(pid.strip())
        except BaseException:
            self.close()
            raise

    def processes(self) -> list[int]:
        """What runs in the container besides its init."""
        return in_pid_namespace(self.init_pid)

    def exec(self, *argv: str) -> str:
        return run(["podman", "exec", self.name, *argv], f"exec {argv[0]} in {self.name}")

    def close(self) -> None:
        subprocess.run(
            ["podman", "rm", "-f", "-t", "0", self.name],
            capture_output=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )


def podman_problem() -> str | None:
    """Why podman cannot run containers here, or None."""
    for tool in ("podman", RUNC, "busybox"):
        if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}"):
            return f"{tool} is not installed (Debian packages podman, runc, busybox-static)"
    if os.geteuid() != 0:
        return "the podman tests run rootful containers and need root"
    return None


# --- sshd --------------------------------------------------------------------------------


class SSHServer:
    """sshd on 127.0.0.1 at a free high port, for one throw-away user and one key."""

    def __init__(self) -> None:
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        for tool in (sshd, "ssh", "scp", "ssh-keygen"):
            if shutil.which(tool) is None:
                raise Unavailable(
                    f"{tool} is not installed (Debian packages openssh-server, openssh-client)"
                )
        if os.geteuid() != 0:
            raise Unavailable("sshd with a test user needs root (to create the user)")
        self.user = SSH_USER
        self.uid = _ensure_user(self.user)
        self.home = Path(pwd.getpwnam(self.user).pw_dir)
        # Readable by the user: sshd reads authorized_keys with its rights.
        self.dir = Path(tempfile.mkdtemp(prefix="shellport-sshd-"))
        os.chmod(self.dir, 0o755)
        self.key = self.dir / "id_ed25519"
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key)], "make a key")
        host_key = self.dir / "host_ed25519"
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key)], "make a host key")
        keys = self.dir / "authorized_keys"
        shutil.copy(f"{self.key}.pub", keys)
        os.chmod(keys, 0o644)
        self.port = _free_port()
        self.known_hosts = self.dir / "known_hosts"
        host_pub = Path(f"{host_key}.pub").read_text().split()
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {host_pub[0]} {host_pub[1]}\n")
        config = self.dir / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    f"Port {self.port}",
                    "ListenAddress 127.0.0.1",
                    f"HostKey {host_key}",
                    f"PidFile {self.dir}/sshd.pid",
                    f"AuthorizedKeysFile {keys}",
                    "StrictModes no",
                    "UsePAM no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin no",
                    f"AllowUsers {self.user}",
                    "MaxStartups 200",
                    "MaxSessions 200",
                    "Subsystem sftp internal-sftp",
                    "LogLevel ERROR",
                    "",
                ]
            )
        )
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation
        self.proc = subprocess.Popen(
            [sshd, "-D", "-e", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            self._await_listening()
        except BaseException:
            self.close()
            raise

    def _await_listening(self) -> None:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise Unavailable(f"sshd exited {self.proc.returncode}: {err.strip()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise Unavailable(f"sshd did not listen on 127.0.0.1:{self.port} within {WAIT:g} s")

    @property
    def options(self) -> list[str]:
        """ssh options that know this server's key (and no other key, no other config)."""
        return [
            "-F",
            "none",
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            f"UserKnownHostsFile={self.known_hosts}",
            "-o",
            "IdentitiesOnly=yes",
        ]

    def processes(self) -> list[int]:
        """The user's processes other than sshd's own."""
        return of_user(self.uid)

    def drop_connections(self) -> int:
        """Kill the server side of every connection of the user, as a dying
        server or network would; returns how many there were."""
        n = 0
        for pid in _pids():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(f"sshd: {self.user}@".encode()):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    n += 1
        return n

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stderr:
            self.proc.stderr.close()
        # The user is ours alone: nothing of it may outlive the tests.
        for pid in of_user(self.uid, but=()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)


def _ensure_user(name: str) -> int:
    try:
        pwd.getpwnam(name)
    except KeyError:
        run(["useradd", "--create-home", "--shell", "/bin/bash", name], f"create user {name}")
    # No password, but not locked ("!"): without PAM, sshd refuses a locked
    # account even its keys.
    run(["usermod", "--password", "*", name], f"unlock user {name} for keys")
    return pwd.getpwnam(name).pw_uid


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
