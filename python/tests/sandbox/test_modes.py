"""Issue 12: sandbox modes enforced by the kernel, per session, for the shell and the editor.

Every test runs through both transports (library, process) and, where a
shell is involved, both profiles (one-shot bash, persistent bash). Paths
"outside" live in a directory the sandbox does not name: the temporary
directories are made read-only for these sessions (writableTmp False), since
pytest's own temporary directories are under /tmp.

A denied write is the command's own failure (bash's "Permission denied", its
exit status), never an is_error result; the editor's refusal is an is_error
result that names the path and the mode. Waits are bounded hang guards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

import shellport
from conftest import CONFIG, wait_until

from .kit import bash, confined

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the Linux backend (Landlock and seccomp); macOS's CI job runs test_sandbox_macos",
)

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def attempts(target: Path, other: Path) -> str:
    """Every way of writing a file, each reported as op:ok or op:denied."""
    return "\n".join(
        [
            'try() { if eval "$2" 2>/dev/null; then echo "$1:ok"; else echo "$1:denied"; fi; }',
            f'try new "echo x > {target}/new"',
            f'try append "echo x >> {target}/old"',
            f'try truncate "truncate -s 0 {target}/keep"',
            f'try rename "mv {target}/old {other}/moved"',
            f'try hardlink "ln {other}/src {target}/hl"',
            f'try symlink "ln -s {other}/src {target}/sl && echo x >> {target}/sl"',
            f'try procroot "echo x > /proc/self/root{target}/viaproc"',
            f'try mkdir "mkdir {target}/d"',
            f'try rm "rm {target}/keep"',
        ]
    )


OPS = ["new", "append", "truncate", "rename", "hardlink", "symlink", "procroot", "mkdir", "rm"]


def seed(d: Path) -> None:
    (d / "old").write_text("old\n")
    (d / "keep").write_text("keep\n")
    (d / "src").write_text("src\n")


def test_writes_outside_fail_inside_succeed(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    ws, out = dirs
    sub = ws / "sub"
    sub.mkdir()
    for d in (ws, out, sub):
        seed(d)
    with confined(rt, ws) as s:
        r = bash(s, attempts(out, ws))
        assert not r.is_error
        for op in OPS:
            assert f"{op}:denied" in r.text, (op, r.text)
        assert (out / "old").read_text() == "old\n"
        assert (out / "keep").read_text() == "keep\n"
        assert sorted(p.name for p in out.iterdir()) == ["keep", "old", "src"]

        r = bash(s, attempts(ws, sub))
        for op in OPS:
            assert f"{op}:ok" in r.text, (op, r.text)


def test_denied_write_is_the_commands_own_failure(
    rt: shellport.Runtime, dirs: tuple[Path, Path]
) -> None:
    ws, out = dirs
    with confined(rt, ws) as s:
        r = bash(s, f"echo x > {out}/f")
        assert not r.is_error
        assert r.meta["exitCode"] == 1
        assert f"{out}/f: Permission denied" in r.text
        assert r.meta["sandbox"]["mode"] == "workspace-write"
        assert r.meta["sandbox"]["network"] is False
        assert r.meta["sandbox"]["writable"] == [str(ws)]
        assert not (out / "f").exists()
        # The terminal, /dev/null and the standard descriptors still work.
        r = bash(s, "echo a >/dev/null; echo b >/dev/stderr; echo c; tty >/dev/null; echo d")
        assert r.meta["exitCode"] == 0
        assert "b" in r.text
        assert "c" in r.text
        assert "d" in r.text


def test_read_only_writes_nothing(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    ws, _ = dirs
    with rt.session(ws, sandbox={"mode": "read-only"}) as s:
        r = bash(s, "cat /etc/hostname >/dev/null && echo read; echo x > inside.txt; echo $?")
        assert "read" in r.text
        assert "Permission denied" in r.text
        assert not (ws / "inside.txt").exists()
        assert s.sandbox is not None
        assert s.sandbox["mode"] == "read-only"


def test_confined_persistent_shell_keeps_the_turn_builtin(
    transport: str, dirs: tuple[Path, Path]
) -> None:
    """Issue 16: Landlock and the seccomp filter leave the shell able to load
    its turn builtin (reads are allowed everywhere, and dlopen needs no
    system call the filter refuses), so a confined shell costs what an
    unconfined one does."""
    ws, _ = dirs
    with shellport.Runtime({**CONFIG, "profile": "persistent"}, transport) as rt:
        for mode in ("read-only", "workspace-write"):
            with rt.session(ws, sandbox={"mode": mode}) as s:
                assert bash(s, "type -t __sp_turn").text == "builtin\n", mode


def test_network_off_blocks_ip_but_not_unix(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    ws, _ = dirs
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    unix_path = ws / "sock"
    unix_listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix_listener.bind(str(unix_path))
    unix_listener.listen(4)
    probe = (
        PY
        + " -c '\n"
        + "import socket\n"
        + "def probe(name, fam, typ, proto, addr):\n"
        + "    try:\n"
        + "        s = socket.socket(fam, typ, proto)\n"
        + "        s.settimeout(10)\n"
        + "        s.connect(addr)\n"
        + '        print(name + ":ok")\n'
        + "    except OSError as e:\n"
        + '        print(name + ":denied:" + str(e.errno))\n'
        + f'probe("tcp", socket.AF_INET, socket.SOCK_STREAM, 0, ("127.0.0.1", {port}))\n'
        + f'probe("mptcp", socket.AF_INET, socket.SOCK_STREAM, 262, ("127.0.0.1", {port}))\n'
        + 'probe("udp", socket.AF_INET, socket.SOCK_DGRAM, 0, ("127.0.0.1", 9))\n'
        + f'probe("ipv6", socket.AF_INET6, socket.SOCK_STREAM, 0, ("::ffff:127.0.0.1", {port}))\n'
        + f'probe("unix", socket.AF_UNIX, socket.SOCK_STREAM, 0, "{unix_path}")\n'
        + "'"
    )
    try:
        with confined(rt, ws) as s:
            r = bash(s, probe)
            for name in ("tcp", "mptcp", "udp", "ipv6"):
                assert f"{name}:denied:1\n" in r.text, (name, r.text)
            assert "unix:ok" in r.text, r.text
        with confined(rt, ws, network=True) as s:
            r = bash(s, probe)
            for name in ("tcp", "udp", "ipv6", "unix"):
                assert f"{name}:ok" in r.text, (name, r.text)
    finally:
        listener.close()
        unix_listener.close()


def test_editor_is_held_to_the_policy(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    ws, out = dirs
    (out / "f.txt").write_text("one\ntwo\n")
    (ws / "link.txt").symlink_to(out / "f.txt")
    with confined(rt, ws) as s:

        def edit(**args: object) -> shellport.ToolResult:
            return s.call("str_replace_editor", args)

        for args in (
            {"command": "create", "path": str(out / "new.txt"), "file_text": "x\n"},
            {
                "command": "str_replace",
                "path": str(out / "f.txt"),
                "old_str": "two",
                "new_str": "2",
            },
            {"command": "insert", "path": str(out / "f.txt"), "insert_line": 0, "new_str": "zero"},
            {
                "command": "str_replace",
                "path": str(ws / "link.txt"),
                "old_str": "two",
                "new_str": "2",
            },
        ):
            r = edit(**args)
            assert r.is_error, (args, r.text)
            assert "this session's sandbox is workspace-write" in r.text
            assert str(out) in r.text
            assert r.meta["sandbox"]["mode"] == "workspace-write"
        assert (out / "f.txt").read_text() == "one\ntwo\n"
        assert not (out / "new.txt").exists()
        # Reads are allowed everywhere; writes inside work.
        assert "two" in edit(command="view", path=str(out / "f.txt")).text
        assert not edit(command="create", path=str(ws / "in.txt"), file_text="a\n").is_error
        assert not edit(
            command="insert", path=str(ws / "in.txt"), insert_line=1, new_str="b"
        ).is_error
        assert (ws / "in.txt").read_text() == "a\nb\n"
    with rt.session(ws, sandbox={"mode": "read-only"}) as s:
        r = s.call(
            "str_replace_editor",
            {"command": "create", "path": str(ws / "ro.txt"), "file_text": "x"},
        )
        assert r.is_error
        assert "read-only" in r.text
        assert str(ws / "ro.txt") in r.text
        assert not (ws / "ro.txt").exists()


def test_two_sessions_with_different_modes_side_by_side(
    rt: shellport.Runtime, tmp_path: Path
) -> None:
    a_dir, b_dir, shared = tmp_path / "a", tmp_path / "b", tmp_path / "shared"
    for d in (a_dir, b_dir, shared):
        d.mkdir()
    results: dict[str, shellport.ToolResult] = {}
    with contextlib.ExitStack() as stack:
        a = stack.enter_context(rt.session(a_dir, sandbox={"mode": "read-only"}))
        b = stack.enter_context(rt.session(b_dir))
        c = stack.enter_context(confined(rt, b_dir))

        def run(name: str, s: shellport.Session) -> None:
            for i in range(5):
                results[name] = bash(s, f"echo {name} > {shared}/{name}{i}; echo done")

        threads = [
            threading.Thread(target=run, args=(n, s)) for n, s in (("a", a), ("b", b), ("c", c))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert "Permission denied" in results["a"].text
        assert "Permission denied" in results["c"].text
        assert "Permission denied" not in results["b"].text
        assert sorted(p.name for p in shared.iterdir()) == [f"b{i}" for i in range(5)]
        assert results["a"].meta["sandbox"]["mode"] == "read-only"
        assert "sandbox" not in results["b"].meta
        assert b.sandbox is None


def test_mode_change_rejected_while_something_runs(
    rt: shellport.Runtime, dirs: tuple[Path, Path]
) -> None:
    ws, out = dirs
    with confined(rt, ws) as s:
        if rt.profile == "persistent":
            bash(s, "true")  # the shell is open now
            with pytest.raises(shellport.SandboxError, match="persistent shell open"):
                s.set_sandbox({"mode": "read-only"})
            bash(s, "exit")  # ending the shell lets the change through
        else:
            task = bash(s, "sleep 600", run_in_background=True).meta["taskId"]
            with pytest.raises(shellport.SandboxError, match="still running"):
                s.set_sandbox({"mode": "read-only"})
            s.call("bash_kill", {"task_id": task})
        assert s.sandbox is not None
        assert s.sandbox["mode"] == "workspace-write"
        s.set_sandbox({"mode": "read-only"})
        assert s.sandbox is not None
        assert s.sandbox["mode"] == "read-only"
        r = bash(s, "echo x > now.txt")
        assert "Permission denied" in r.text
        assert r.meta["sandbox"]["mode"] == "read-only"
        # Narrow only: the runtime's default is full access, so anything goes
        # back; a runtime with a restricted default refuses widening.
        if rt.profile == "persistent":
            bash(s, "exit")
        s.set_sandbox({})
        assert s.sandbox is None
        assert "Permission denied" not in bash(s, f"echo x > {out}/back.txt").text


def test_widening_needs_the_runtime_to_allow_it(transport: str, tmp_path: Path) -> None:
    base = {"mode": "workspace-write", "writableTmp": False}
    with shellport.Runtime({**CONFIG, "sandbox": base}, transport) as rt:
        if rt.sandbox.get("backend") != "landlock":
            pytest.skip(str(rt.sandbox.get("reason")))
        assert rt.sandbox["default"]["mode"] == "workspace-write"
        with pytest.raises(shellport.InvalidParams, match="allowWidening"):
            rt.session(tmp_path, sandbox={"mode": "full-access"})
        with pytest.raises(shellport.InvalidParams, match="network access is wider"):
            rt.session(tmp_path, sandbox={"network": True})
        with rt.session(tmp_path) as s:  # the default applies
            assert s.sandbox is not None
            assert s.sandbox["mode"] == "workspace-write"
            assert "Permission denied" in bash(s, "echo x > /etc/shellport-test").text
    wide = {**CONFIG, "sandbox": {**base, "allowWidening": True}}
    with shellport.Runtime(wide, transport) as rt, rt.session(tmp_path, sandbox={}) as s:
        s.set_sandbox({"mode": "full-access"})
        assert s.sandbox is not None
        assert s.sandbox["mode"] == "full-access"


def test_background_tasks_are_confined(transport: str, dirs: tuple[Path, Path]) -> None:
    ws, out = dirs
    with shellport.Runtime(CONFIG, transport) as rt, confined(rt, ws) as s:
        task = bash(s, f"echo x > {out}/bg; echo rc=$?", run_in_background=True).meta["taskId"]

        def finished() -> bool:
            return s.call("bash_output", {"task_id": task}).meta.get("status") != "running"

        wait_until(finished, "the background task to finish", limit=60)
        assert not (out / "bg").exists()


def test_descriptions_say_where_the_model_may_write(
    rt: shellport.Runtime, dirs: tuple[Path, Path]
) -> None:
    ws, _ = dirs
    plain = {t["name"]: t["description"] for t in rt.tools()}
    assert all("Sandbox" not in d for d in plain.values())
    with confined(rt, ws) as s:
        mine = {t["name"]: t["description"] for t in s.tools()}
        line = (
            "Sandbox (workspace-write): files may be created or changed only under "
            f"{ws}; no network access."
        )
        assert mine["bash"].endswith("\n\n" + line)
        assert mine["str_replace_editor"].endswith("\n\n" + line)
        assert mine.get("bash_output", "") == plain.get("bash_output", "")


# --- escape attempts ----------------------------------------------------------------

RUNTIME_PID = "$(awk '{print $4}' /proc/$PPID/stat)"  # the supervisor's parent


def test_escape_attempts_fail(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    ws, out = dirs
    secret = out / "inherited.txt"
    fd = os.open(secret, os.O_WRONLY | os.O_CREAT, 0o644)
    os.set_inheritable(fd, True)  # a descriptor the host process leaves open
    try:
        script = "\n".join(
            [
                'try() { if eval "$2" >/dev/null 2>&1; then echo "$1:escaped"; '
                'else echo "$1:held"; fi; }',
                f"rt={RUNTIME_PID}; echo runtime=$rt",
                f"try unshare-user \"unshare -r sh -c 'echo x > {out}/u'\"",
                f'try unshare-mount "unshare -m sh -c '
                f"'mount -t tmpfs none {out} && echo x > {out}/m'\"",
                f'try mount "mount -t tmpfs none {out}"',
                # The shell has descriptors of its own; only the host's file counts.
                f'try inherited-fd "test \\"$(readlink /proc/$$/fd/{fd})\\" = \'{secret}\' '
                f'&& echo x >&{fd}"',
                f'try proc-fd "echo x > /proc/$rt/fd/{fd}"',
                "try proc-fds \"ls -l /proc/$rt/fd/ | grep -q -- '->'\"",
                # PTRACE_SEIZE (0x4206) attaches without stopping the target.
                f"try ptrace \"{PY} -c 'import ctypes,sys; "
                "sys.exit(0 if ctypes.CDLL(None).ptrace(0x4206, $rt, 0, 0) == 0 else 1)'\"",
                # io_uring_setup(4, params) is system call 425.
                f"try io_uring \"{PY} -c 'import ctypes,sys; p=(ctypes.c_char*120)(); "
                "sys.exit(0 if ctypes.CDLL(None).syscall(425, 4, p) >= 0 else 1)'\"",
                'try signal-runtime "kill -0 $rt"',
            ]
        )
        with confined(rt, ws) as s:
            r = bash(s, script)
            assert "escaped" not in r.text, r.text
            assert r.text.count(":held") == 9, r.text
            runtime = int(r.text.split("runtime=")[1].split()[0])
            if rt.transport_name == "library":
                assert runtime == os.getpid()
            else:
                assert os.path.basename(os.readlink(f"/proc/{runtime}/exe")) == "shellport"
        assert secret.read_text() == ""
        assert sorted(p.name for p in out.iterdir()) == ["inherited.txt"]
    finally:
        os.close(fd)


def _procs(m: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            args = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if m.encode() in args and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def test_killing_the_supervisor_is_refused(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    """Issue 10's last escape, closed: kill -9 $PPID, then detaching.

    The command cannot signal its supervisor (Landlock's signal scope), so
    the supervisor stays and kills what detached when the command ends.
    """
    ws, _ = dirs
    m = f"{3600 + os.getpid() % 1000}.{os.getpid()}{int(time.time() * 1000) % 100000}"
    try:
        with confined(rt, ws) as s:
            r = bash(
                s,
                f"setsid sleep {m} </dev/null >/dev/null 2>&1 & kill -9 $PPID; echo kill=$?; "
                f"i=0; until pgrep -f 'sleep {m}' >/dev/null || [ $i -ge 500 ]; "
                "do sleep 0.02; i=$((i+1)); done",
            )
            assert "Operation not permitted" in r.text, r.text
            assert "kill=1" in r.text, r.text
            if rt.profile == "persistent":
                assert "reset" not in r.text.lower()
                bash(s, "exit")  # ending the shell ends what it started
        wait_until(lambda: not _procs(m), f"the detached sleep {m} to be killed", limit=60)
    finally:
        for pid in _procs(m):
            os.kill(pid, signal.SIGKILL)


def test_initialize_reports_what_is_enforceable(transport: str) -> None:
    with shellport.Runtime(CONFIG, transport) as rt:
        info = rt.sandbox
        assert info["backend"] in ("landlock", "none")
        assert info["default"] == {"mode": "full-access"}
        if info["backend"] == "landlock":
            assert info["landlockAbi"] >= 3
            assert info["files"] == "landlock-thread"
            assert "signal" in info.get("scopes", []) or info["landlockAbi"] < 6


def test_no_python3_needed_for_probes() -> None:
    """The probes above run PY: it must exist where the tests run."""
    assert shutil.which(PY) or os.path.exists(PY)
