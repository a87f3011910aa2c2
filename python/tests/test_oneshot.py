"""One-shot bash, bash_output and bash_kill (issue 4) through the Python API,
on both transports.

Each test drives the real tools of the default profile. Background tasks are
steered with files the test creates (no sleeps standing in for events), and
every wait is bounded only to turn a hang into a failure.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import shellport
from conftest import alive, spare_supervisors, wait_dead, wait_until

#: Generous enough that no ordinary command times out on a loaded machine.
CALL_TIMEOUT_MS = 60_000


@pytest.fixture
def ort(transport: str) -> Iterator[shellport.Runtime]:
    """A runtime with the default (one-shot) profile."""
    rt = shellport.Runtime(transport=transport)
    try:
        # Every build mounts the tools: a missing one fails (issue 18).
        assert rt.profile == "oneshot"
        assert {"bash", "bash_output", "bash_kill"} <= set(rt.tool_names)
        yield rt
    finally:
        rt.close()


@pytest.fixture
def s(ort: shellport.Runtime, tmp_path: Path) -> Iterator[shellport.Session]:
    with ort.session(tmp_path) as session:
        yield session


def bash(
    session: shellport.Session, command: str, description: str = "Run a test command", **extra: Any
) -> shellport.ToolResult:
    """Run command with bash; a tool error fails the test."""
    args: dict[str, Any] = {"command": command, "description": description}
    args.setdefault("timeoutMs", CALL_TIMEOUT_MS)
    args.update(extra)
    r = session.call("bash", args)
    assert r.is_error is False, r.text
    return r


def start_task(session: shellport.Session, command: str) -> str:
    r = bash(session, command, "Start a background task", run_in_background=True)
    task_id = r.meta["taskId"]
    assert re.fullmatch(r"bash-\d+", task_id)
    assert r.meta["status"] == "running"
    assert r.text.startswith(f"Started background task {task_id}.")
    assert r.meta["spillPath"] in r.text
    return str(task_id)


def read_task(session: shellport.Session, task_id: str) -> tuple[str, str]:
    """One bash_output call: (the new output, the status line)."""
    r = session.call("bash_output", {"task_id": task_id})
    assert r.is_error is False, r.text
    cut = r.text.rindex("[status: ")
    body, status = r.text[:cut], r.text[cut:]
    assert "\n" not in status
    return ("" if body == "[no new output]\n" else body), status


def wait_for_files(*paths: Path) -> None:
    """Wait until every file holds a whole line: `echo X > f` creates f before writing."""

    def there() -> bool:
        return all(p.exists() and p.read_text().endswith("\n") for p in paths)

    wait_until(there, "files " + ", ".join(p.name for p in paths))


def assert_notice(notices: list[str], task: str, status: str, command: str) -> None:
    """notices is the one completion notice of task; a long command may be cut with "…"."""
    assert len(notices) == 1, notices
    head = f"Background task {task} finished ({status}): "
    assert notices[0].startswith(head), notices[0]
    shown = notices[0][len(head) :]
    assert shown == command or (shown.endswith("…") and command.startswith(shown[:-1])), shown


# Waits for file NAME to appear, bounded (15 s) so a broken test cannot hang.
def await_file(name: str) -> str:
    return f"for i in $(seq 1 1500); do [ -e {name} ] && break; sleep 0.01; done"


# --- bash -------------------------------------------------------------------------------


def test_stdout_then_stderr_section_then_status(s: shellport.Session) -> None:
    r = bash(s, "echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 4")
    assert r.text == "out1\nout2\n[stderr]\nerr1\nerr2\n[exit code: 4]"
    assert r.meta["exitCode"] == 4


def test_nonzero_exit_is_a_result_not_an_error(s: shellport.Session) -> None:
    r = bash(s, "false")
    assert (r.is_error, r.text, r.meta["exitCode"]) == (False, "[exit code: 1]", 1)
    r = bash(s, "true")
    assert (r.text, r.meta["exitCode"]) == ("[no output]", 0)
    r = bash(s, "printf partial")
    assert r.text == "partial"


def test_nothing_persists_between_calls(s: shellport.Session) -> None:
    assert bash(s, "cd /; export FOO=1; f() { :; }; alias ll=ls").text == "[no output]"
    r = bash(s, 'pwd; echo "[$FOO]"; declare -F f || echo no-f; alias ll 2>/dev/null || echo no-ll')
    assert r.text == f"{s.cwd}\n[]\nno-f\nno-ll\n"


def test_workdir(
    s: shellport.Session, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    assert bash(s, "pwd").text == f"{s.cwd}\n"
    assert bash(s, "pwd", workdir="sub").text == f"{s.cwd}/sub\n"
    assert bash(s, "pwd", workdir="sub/deeper").text == f"{s.cwd}/sub/deeper\n"
    assert bash(s, "pwd", workdir=str(elsewhere)).text == f"{elsewhere}\n"

    missing = s.call("bash", {"command": "pwd", "description": "Print", "workdir": "nope"})
    assert missing.is_error is True
    assert 'workdir "nope"' in missing.text
    assert f"{s.cwd}/nope" in missing.text
    assert "does not exist" in missing.text

    gone = s.call("bash", {"command": "pwd", "description": "Print", "workdir": "/no/such/dir"})
    assert gone.is_error is True
    assert '"/no/such/dir"' in gone.text
    assert "does not exist" in gone.text

    (tmp_path / "file").write_text("")
    not_dir = s.call("bash", {"command": "pwd", "description": "Print", "workdir": "file"})
    assert not_dir.is_error is True
    assert "not a directory" in not_dir.text


def test_timeout_marker_even_when_command_traps_term_and_exits_0(s: shellport.Session) -> None:
    r = bash(
        s,
        "trap 'echo got-term; exit 0' TERM; echo started; while :; do sleep 0.05; done",
        timeoutMs=300,
    )
    assert r.text.startswith("started\ngot-term\n")
    assert r.text.endswith("\n[timed out after 300 ms]")
    assert "[exit code:" not in r.text
    assert "[killed by signal:" not in r.text
    assert r.meta["timedOut"] is True
    assert r.meta["exitCode"] == 0
    assert r.meta["signal"] is None


def test_timeout_of_a_command_that_dies_of_sigterm(s: shellport.Session) -> None:
    r = bash(s, "sleep 30", timeoutMs=300)
    assert r.text == "[timed out after 300 ms]\n[killed by signal: SIGTERM]"
    assert (r.meta["timedOut"], r.meta["signal"]) == (True, "SIGTERM")


def test_signal_death_marker(s: shellport.Session) -> None:
    r = bash(s, "kill -9 $$")
    assert r.text == "[killed by signal: SIGKILL]"
    assert (r.meta["signal"], r.meta["exitCode"]) == ("SIGKILL", None)
    r = bash(s, "echo before; kill -TERM $$")
    assert r.text == "before\n[killed by signal: SIGTERM]"
    assert r.meta["signal"] == "SIGTERM"


def test_processes_left_behind_are_stopped(s: shellport.Session, tmp_path: Path) -> None:
    r = bash(s, "sleep 300 & echo $! > bg.pid; sleep 301 >/dev/null 2>&1 & echo $! > quiet.pid")
    assert r.text == "[no output]"
    for name in ("bg.pid", "quiet.pid"):
        wait_dead(int((tmp_path / name).read_text()), f"the process in {name}")


def test_truncation_keeps_head_and_tail_and_spills_everything(s: shellport.Session) -> None:
    # Issue 11: the head and the tail are kept, as in persistent bash.
    full = "".join(f"{i}\n" for i in range(1, 100_001))
    r = bash(s, "seq 1 100000")
    assert r.meta["truncated"] is True
    spill = r.meta["spillPath"]
    assert Path(spill).read_text() == full
    m = re.fullmatch(
        r"(.*)\[\.\.\. ([0-9,]+) characters \(([0-9,]+) lines\) left out \.\.\.\]\n(.*)\n"
        r"\[output truncated; full output: (.*)\]",
        r.text,
        re.S,
    )
    assert m is not None, r.text[:300] + " … " + r.text[-300:]
    head, omitted, tail, named = (
        m.group(1),
        int(m.group(2).replace(",", "")),
        m.group(4) + "\n",
        m.group(5),
    )
    assert named == spill
    assert omitted + len(head) + len(tail) == len(full)
    assert full.startswith(head)
    assert head.startswith("1\n2\n3\n")
    assert full.endswith(tail)
    assert tail.endswith("99999\n100000\n")
    assert len(head) + len(tail) <= 30_000


# --- background tasks -------------------------------------------------------------------


def test_background_lifecycle(s: shellport.Session, tmp_path: Path) -> None:
    command = f"echo first; {await_file('go')}; echo second; exit 3"
    task = start_task(s, command)

    seen = ""
    while "first" not in seen:  # bounded by the task's own loop
        out, status = read_task(s, task)
        seen += out
        assert status == "[status: running]"
    assert seen == "first\n"  # the first piece came while the task ran

    (tmp_path / "go").touch()
    status = "[status: running]"
    while status == "[status: running]":
        out, status = read_task(s, task)
        seen += out
    assert seen == "first\nsecond\n"  # each piece once, in order
    assert status == "[status: completed, exit code: 3]"
    assert read_task(s, task) == ("", "[status: completed, exit code: 3]")

    notices: list[str] = []

    def noticed() -> bool:
        notices.extend(s.notices())
        return bool(notices)

    wait_until(noticed, "the completion notice")
    assert_notice(notices, task, "completed, exit code: 3", command)

    kill = s.call("bash_kill", {"task_id": task})
    assert kill.is_error is False
    assert "already finished" in kill.text
    assert kill.meta["killed"] is False


def test_killing_a_task_kills_its_grandchildren(s: shellport.Session, tmp_path: Path) -> None:
    task = start_task(
        s,
        "echo $$ > leader.pid; "
        "bash -c 'sleep 300 & echo $! > grandchild.tmp; mv grandchild.tmp grandchild.pid; wait'"
        " & echo $! > child.pid; "
        "(trap '' TERM; exec sleep 301) & echo $! > stubborn.pid; "
        "echo ready; wait",
    )
    names = ("leader.pid", "child.pid", "grandchild.pid", "stubborn.pid")
    wait_for_files(*(tmp_path / n for n in names))
    pids = [int((tmp_path / n).read_text()) for n in names]
    assert all(alive(p) for p in pids)

    r = s.call("bash_kill", {"task_id": task})
    assert r.is_error is False, r.text
    assert r.text.startswith(f"Stopped background task {task}.")
    assert r.text.splitlines()[-1].startswith("[status: killed")
    assert r.meta["killed"] is True
    for pid, name in zip(pids, names):
        wait_dead(pid, f"the process in {name}")
    out, status = read_task(s, task)
    assert out == "ready\n"
    assert status.startswith("[status: killed")


def test_tasks_are_fenced_per_session(ort: shellport.Runtime, tmp_path: Path) -> None:
    with ort.session(tmp_path) as owner, ort.session(tmp_path) as other:
        command = f"echo owner-out; {await_file('stop')}; echo owner-done"
        task = start_task(owner, command)
        denied = f"task {task} belongs to another session"
        for tool in ("bash_output", "bash_kill"):
            r = other.call(tool, {"task_id": task})
            assert (r.is_error, r.text) == (True, denied), tool

        # The owner still reads it, and the other session's kill did nothing.
        seen = ""
        while "owner-out" not in seen:
            out, status = read_task(owner, task)
            seen += out
            assert status == "[status: running]"

        (tmp_path / "stop").touch()
        status = "[status: running]"
        while status == "[status: running]":
            out, status = read_task(owner, task)
            seen += out
        assert (seen, status) == ("owner-out\nowner-done\n", "[status: completed, exit code: 0]")

        # Ownership outlives the task.
        r = other.call("bash_output", {"task_id": task})
        assert (r.is_error, r.text) == (True, denied)

        # The notice goes to the owner only.
        notices: list[str] = []

        def noticed() -> bool:
            notices.extend(owner.notices())
            return bool(notices)

        wait_until(noticed, "the owner's notice")
        assert_notice(notices, task, "completed, exit code: 0", command)
        assert other.notices() == []


def test_unknown_task_id(s: shellport.Session) -> None:
    for tool in ("bash_output", "bash_kill"):
        r = s.call(tool, {"task_id": "bash-99"})
        assert (r.is_error, r.text) == (True, 'task "bash-99" not found'), tool


# --- concurrency ------------------------------------------------------------------------

PARALLEL = 32


async def test_parallel_calls_overlap(s: shellport.Session, tmp_path: Path) -> None:
    # Each command drops a marker file and waits until all PARALLEL markers
    # exist: every one reports them all only if they ran at the same time.
    (tmp_path / "m").mkdir()

    def command(i: int) -> str:
        return (
            f"touch m/{i}; for k in $(seq 1 600); do set -- m/*; "
            f'[ $# -ge {PARALLEL} ] && break; sleep 0.05; done; echo "seen $#"'
        )

    results = await asyncio.gather(
        *(
            s.acall(
                "bash",
                {"command": command(i), "description": "Wait for the others", "timeoutMs": 60_000},
            )
            for i in range(PARALLEL)
        )
    )
    assert [r.text for r in results] == [f"seen {PARALLEL}\n"] * PARALLEL
    assert not any(r.is_error for r in results)


# --- presentation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        ("echo hi", {}),
        ("echo out; echo err >&2; exit 7", {}),
        ("kill -9 $$", {}),
        ("trap 'exit 0' TERM; while :; do sleep 0.05; done", {"timeoutMs": 300}),
    ],
)
def test_presentation_round_trip(s: shellport.Session, command: str, extra: dict[str, Any]) -> None:
    r = bash(s, command, "Show the presentation", **extra)
    p = r.presentation
    assert p["title"] == command
    assert p["kind"] == "execute"
    assert p["rawInput"] == command
    # Issue 14: only a command that exited 0 in time is "completed" (codex-acp's rule).
    assert p["status"] == ("completed" if command == "echo hi" else "failed")
    assert p["content"][0]["content"]["text"] == "Show the presentation"
    exit_ = p["_meta"]["terminal_exit"]
    assert exit_["exit_code"] == r.meta["exitCode"]
    assert exit_["signal"] == r.meta["signal"]
    fallback = [b["content"]["text"] for b in p["content"][1:]]
    assert any(t.startswith("```") and r.text in t for t in fallback)


def test_task_tool_presentation(s: shellport.Session) -> None:
    task = start_task(s, await_file("stop"))
    out = s.call("bash_output", {"task_id": task})
    assert out.presentation["title"] == f"Read output from background task {task}"
    assert out.presentation["kind"] == "read"
    assert task in str(out.presentation["rawInput"])
    kill = s.call("bash_kill", {"task_id": task})
    assert kill.presentation["title"] == f"Kill background task {task}"
    assert kill.presentation["kind"] == "other"
    assert task in str(kill.presentation["rawInput"])


@pytest.mark.skipif(sys.platform != "linux", reason="spare supervisors are Linux's")
def test_no_spare_supervisor_outlives_its_runtime(transport: str, tmp_path: Path) -> None:
    """Issue 16: the shellport executable starts a supervisor ahead of its
    next one-shot command, killed when the runtime closes: one is waiting
    after a command, none is left once close returns. The library starts
    none (its host may change its umask or limits between calls)."""
    before = spare_supervisors()
    rt = shellport.Runtime(transport=transport)
    try:
        with rt.session(tmp_path) as session:
            assert bash(session, "echo hi").text.strip() == "hi"
            if transport == "process":
                wait_until(
                    lambda: bool(spare_supervisors() - before), "a spare after the first command"
                )
            mine = spare_supervisors() - before
            assert bash(session, "echo again").text.strip() == "again"
    finally:
        rt.close()
    assert bool(mine) == (transport == "process"), mine
    assert not (spare_supervisors() - before), "a spare outlived its runtime"
