"""The sandbox's known limits (docs/TOOLS.md, "Known limits"), each shown as it is.

A limit is a claim too: that the sandbox does not hold something is what a
harness plans around, so each bullet there names the test here that shows
the gap exactly where the docs put it, and no wider. When a later kernel or
backend closes one, its test fails and the docs change with it (issue 18).

Every test runs through both transports and, where a shell is involved, both
profiles. Waits are bounded hang guards.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest

import shellport
from conftest import wait_until

from .kit import bash, confined, open_runtime

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the Linux backend's limits (Landlock and seccomp)",
)


def fields(text: str) -> dict[str, str]:
    """The probe's key=value lines."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def runtime_pid(rt: shellport.Runtime) -> int:
    """The process the runtime runs in: this one, or the executable."""
    transport = rt._connection().transport
    if isinstance(transport, shellport.StdioTransport):
        return transport.pid
    return os.getpid()


def test_limit_metadata_outside_is_not_confined(
    rt: shellport.Runtime, dirs: tuple[Path, Path]
) -> None:
    # Landlock (up to ABI 7) has no right for mode, times or owner: they
    # change outside the writable paths, while the content does not.
    ws, out = dirs
    target = out / "f"
    target.write_text("orig\n")
    target.chmod(0o644)
    with confined(rt, ws) as s:
        r = bash(
            s,
            f"chmod 600 {target}; echo chmod=$?; touch -d 2001-02-03 {target}; echo touch=$?; "
            f"echo more >> {target}; echo append=$?",
        )
    got = fields(r.text)
    assert (got["chmod"], got["touch"]) == ("0", "0"), r.text
    assert got["append"] != "0", r.text
    st = target.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert time.gmtime(st.st_mtime).tm_year == 2001
    assert target.read_text() == "orig\n"


def test_limit_hard_link_made_before_is_written_through(
    rt: shellport.Runtime, dirs: tuple[Path, Path]
) -> None:
    # Landlock checks the path the write names: a link that already sits in
    # the workspace reaches a file outside it. Making one from inside is
    # refused (a link across the boundary is a "cross-device" link).
    ws, out = dirs
    outside, other = out / "outside", out / "other"
    outside.write_text("orig\n")
    other.write_text("other\n")
    os.link(outside, ws / "alias")
    with confined(rt, ws) as s:
        r = bash(
            s,
            f"echo through >> {ws}/alias; echo append=$?; ln {other} {ws}/new; echo ln=$?",
        )
    got = fields(r.text)
    assert got["append"] == "0", r.text
    assert outside.read_text() == "orig\nthrough\n"
    assert got["ln"] != "0", r.text
    assert not (ws / "new").exists()
    assert "Invalid cross-device link" in r.text, r.text


def test_limit_reads_are_not_confined(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    # Reads stay open: any file the user may read, and the runtime's own
    # environment and command line under /proc.
    ws, out = dirs
    secret = out / "secret"
    secret.write_text("s3cret-value\n")
    pid = runtime_pid(rt)
    with confined(rt, ws) as s:
        r = bash(
            s,
            f"cat {secret}; tr '\\0' '\\n' < /proc/{pid}/environ | grep -c '^PATH='; "
            f"tr '\\0' '\\n' < /proc/{pid}/cmdline | head -c 1 | wc -c",
        )
    assert r.text.split()[:3] == ["s3cret-value", "1", "1"], r.text


def test_limit_large_here_document_fails_in_read_only(
    rt: shellport.Runtime, dirs: tuple[Path, Path]
) -> None:
    # Bash keeps a here-document in a pipe while it fits the pipe's buffer
    # and writes a larger one to a temporary file, which read-only refuses.
    ws, _ = dirs
    small, large = "s" * 1000, "l" * (80 * 1024)
    with confined(rt, ws, mode="read-only") as s:
        r_small = bash(s, f"cat <<'EOF' | wc -c\n{small}\nEOF\necho rc=$?")
        r_large = bash(s, f"cat <<'EOF' | wc -c\n{large}\nEOF\necho rc=$?")
    assert r_small.text.split()[0] == str(len(small) + 1), r_small.text
    assert str(len(large) + 1) not in r_large.text.split(), r_large.text[:500]
    assert "here-document" in r_large.text, r_large.text[:500]


def test_limit_caches_need_a_writable_root(rt: shellport.Runtime, dirs: tuple[Path, Path]) -> None:
    # A tool's cache under the home directory is outside the workspace: it
    # is refused until the session names it in writableRoots.
    ws, out = dirs
    home = out / "home"
    home.mkdir()
    probe = "mkdir -p ~/.cache/tool && echo x > ~/.cache/tool/entry; echo rc=$?"
    env = {"HOME": str(home)}
    with rt.session(ws, env=env, sandbox={"mode": "workspace-write", "writableTmp": False}) as s:
        assert fields(bash(s, probe).text)["rc"] != "0"
    assert not (home / ".cache").exists()
    with rt.session(
        ws,
        env=env,
        sandbox={"mode": "workspace-write", "writableTmp": False, "writableRoots": [str(home)]},
    ) as s:
        assert fields(bash(s, probe).text)["rc"] == "0"
    assert (home / ".cache" / "tool" / "entry").read_text() == "x\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="shows what a root command keeps")
def test_limit_root_is_confined_but_keeps_its_uid(
    rt: shellport.Runtime, dirs: tuple[Path, Path]
) -> None:
    # A root command is bound by Landlock and seccomp like any other: no
    # write outside, no mount, no hostname; it is still uid 0.
    ws, out = dirs
    (ws / "m").mkdir()
    with confined(rt, ws) as s:
        r = bash(
            s,
            f"echo uid=$(id -u); echo x > {out}/f; echo write=$?; "
            f"mount -t tmpfs none {ws}/m 2>/dev/null; echo mount=$?; "
            "hostname sandbox-test 2>/dev/null; echo hostname=$?",
        )
    got = fields(r.text)
    assert got["uid"] == "0", r.text
    assert "0" not in (got["write"], got["mount"], got["hostname"]), r.text
    assert not (out / "f").exists()


def test_limit_signals_between_calls(transport: str, profile: str, dirs: tuple[Path, Path]) -> None:
    # One-shot: each command has a sandbox of its own, so with the signal
    # scope (Landlock ABI 6+) a later call cannot signal an earlier call's
    # background task; bash_kill can. Persistent: every command shares the
    # shell's sandbox, so the next command can.
    ws, _ = dirs
    with open_runtime(transport, profile) as rt:
        if int(rt.sandbox.get("landlockAbi") or 0) < 6:
            pytest.skip("the signal scope needs Landlock ABI 6")
        with confined(rt, ws) as s:
            if profile == "oneshot":
                r = bash(s, "echo pid=$$; exec sleep 300", run_in_background=True)
                task = r.meta["taskId"]

                seen: list[str] = []  # bash_output gives what is new since the last read

                def started() -> bool:
                    seen.append(s.call("bash_output", {"task_id": task}).text)
                    return "pid=" in "\n".join(seen)

                wait_until(started, "the background task to say its pid", limit=60)
                pid = fields("\n".join(seen))["pid"]
                r = bash(s, f"kill -TERM {pid}; echo kill=$?")
                assert fields(r.text)["kill"] != "0", r.text
                assert "Operation not permitted" in r.text, r.text
                assert s.call("bash_output", {"task_id": task}).meta["status"] == "running"
                s.call("bash_kill", {"task_id": task})

                def stopped() -> bool:
                    return s.call("bash_output", {"task_id": task}).meta["status"] != "running"

                wait_until(stopped, "bash_kill to stop the task", limit=60)
            else:
                pid = fields(bash(s, "sleep 300 & echo pid=$!").text)["pid"]

                # Until the job has exec'd sleep it is a fork of bash with
                # bash's handlers: a SIGTERM then is caught, and lost at the
                # exec (under load the fork may not have run yet), and the
                # wait below would outlast the call's timeout.
                def execd() -> bool:
                    try:
                        return Path(f"/proc/{pid}/comm").read_text().strip() == "sleep"
                    except OSError:
                        return False

                wait_until(execd, "the background job to exec sleep", limit=60)
                r = bash(s, f"kill -TERM {pid}; echo kill=$?; wait {pid}; echo status=$?")
                got = fields(r.text)
                assert (got.get("kill"), got.get("status")) == ("0", str(128 + 15)), r.text
