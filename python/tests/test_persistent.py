"""Persistent bash (issue 3) through the Python API, on both transports.

Each test drives the real tool: one interactive bash per session on a PTY.
The Go tests in tools/persistent cover the same bullets in depth; these check
that they hold end to end through the library and the process transports.
Timeouts are short only where a timeout is the point; nothing here measures
speed.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import shellport
from conftest import alive, spare_supervisors, wait_dead, wait_until

#: Long enough that no ordinary command here times out on a loaded machine.
LONG_TIMEOUT_MS = 60_000
#: For the tests whose point is a timeout.
SHORT_TIMEOUT_MS = 500


def persistent_runtime(transport: str, timeout_ms: int = LONG_TIMEOUT_MS) -> shellport.Runtime:
    config: dict[str, Any] = {"profile": "persistent", "tools": {"bash": {"timeoutMs": timeout_ms}}}
    rt = shellport.Runtime(config, transport)
    # Every build mounts the tools: a runtime without bash is a failure, not a skip (issue 18).
    assert "bash" in rt.tool_names, rt.tool_names
    assert rt.profile == "persistent"
    return rt


@pytest.fixture
def prt(transport: str) -> Iterator[shellport.Runtime]:
    """A persistent-profile runtime with a long timeout."""
    rt = persistent_runtime(transport)
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture
def short_rt(transport: str) -> Iterator[shellport.Runtime]:
    """A persistent-profile runtime whose bash times out after SHORT_TIMEOUT_MS."""
    rt = persistent_runtime(transport, SHORT_TIMEOUT_MS)
    try:
        yield rt
    finally:
        rt.close()


@pytest.fixture
def sh(prt: shellport.Runtime, tmp_path: Path) -> Iterator[shellport.Session]:
    with prt.session(tmp_path) as s:
        yield s


def bash(s: shellport.Session, command: str) -> shellport.ToolResult:
    """Run command in the session's shell; a tool error fails the test."""
    r = s.call("bash", {"command": command})
    assert r.is_error is False, r.text
    return r


def expect(s: shellport.Session, command: str, text: str) -> shellport.ToolResult:
    """Run command and require exactly text back, from a shell that was not reset."""
    r = bash(s, command)
    assert r.text == text, command
    assert r.meta["shellReset"] is False
    assert r.meta["timedOut"] is False
    return r


def read_pid(path: Path) -> int:
    return int(path.read_text().strip())


def reset_note_in(text: str, cwd: str) -> bool:
    """Whether text tells the model the shell's state is gone and where it restarts."""
    return "working directory, variables" in text and "gone" in text and cwd in text


@pytest.mark.skipif(sys.platform != "linux", reason="spare supervisors are Linux's")
def test_shell_starts_under_a_spare_supervisor(transport: str, tmp_path: Path) -> None:
    """Issue 16: the shellport executable keeps a supervisor started ahead of
    the next persistent shell: the second session's shell runs under the
    spare that was waiting after the first one started, and no spare, shell
    or supervisor is left once the runtime closes. The library execs each
    shell's supervisor (its host may change its umask or limits)."""
    before = spare_supervisors()
    rt = persistent_runtime(transport)
    shells: list[int] = []
    try:
        with rt.session(tmp_path) as first:
            shells.append(int(bash(first, "echo $$").text))
            if transport == "process":
                wait_until(
                    lambda: bool(spare_supervisors() - before), "a spare after the first shell"
                )
            waiting = spare_supervisors() - before
            with rt.session(tmp_path) as second:
                pid, parent = bash(second, "echo $$ $PPID").text.split()
                shells.append(int(pid))
                assert (int(parent) in waiting) == (transport == "process"), (parent, waiting)
                supervisors = {int(parent)}
    finally:
        rt.close()
    assert bool(waiting) == (transport == "process"), waiting
    assert not (spare_supervisors() - before), "a spare outlived its runtime"
    assert not [p for p in [*shells, *supervisors] if alive(p)], (
        "a shell or supervisor outlived its runtime"
    )


# --- state ------------------------------------------------------------------------------


def test_state_persists_across_calls(sh: shellport.Session, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "activate").write_text(
        f'export VIRTUAL_ENV="{venv}"\nexport PATH="$VIRTUAL_ENV/bin:$PATH"\n'
    )
    tool = venv / "bin" / "hello-venv"
    tool.write_text("#!/bin/sh\necho from-venv\n")
    tool.chmod(0o755)
    (tmp_path / "sub").mkdir()

    expect(
        sh,
        "cd sub && export FOO='bar baz' && greet() { echo \"hi $1\"; }"
        " && alias ll='echo aliased' && source ../venv/bin/activate",
        "[no output]",
    )
    expect(
        sh,
        'pwd; echo "$FOO"; greet you; ll; hello-venv; echo "$VIRTUAL_ENV"',
        f"{sh.cwd}/sub\nbar baz\nhi you\naliased\nfrom-venv\n{venv}\n",
    )
    expect(sh, "unset FOO; cd ..", "[no output]")
    expect(sh, 'echo "[$FOO]"; pwd', f"[]\n{sh.cwd}\n")


def test_quiet_terminal_environment(sh: shellport.Session) -> None:
    expect(sh, 'echo "$PAGER|$GIT_PAGER|$NO_COLOR"', "cat|cat|1\n")


# --- spoofing ---------------------------------------------------------------------------

# Each dumps shell state or prints something frame-shaped; none may end the
# call early or leave anything behind for the next call.
SPOOFS = [
    "set",
    "declare -p",
    "declare -f",
    "env",
    "export -p",
    "history",
    "trap -p",
    "compgen -v",
    "printf '%s 0\\n' 0123456789abcdef0123456789abcdef",
    "printf '__END__\\n$ \\n# \\n'",
    "tr '\\0' '\\n' < /proc/$$/cmdline",
    "tr '\\0' '\\n' < /proc/$$/environ",
    # Well-formed end frames (issue 10): made up, and the end-of-loop one.
    "printf '\\033_SP%s\\033\\\\' 0123456789ABCDEF0123456789ABCDEF"
    " 00000000000000000000000000000000",
    # Everything the shell holds open, including the inbox of earlier calls.
    'for fd in /proc/$$/fd/*; do [ -f "$fd" ] && cat "$fd"; done',
]


def test_state_dumps_and_fake_markers_do_not_end_a_call(sh: shellport.Session) -> None:
    expect(sh, "export KEEP=kept; f() { echo in-f; }", "[no output]")
    for i, spoof in enumerate(SPOOFS):
        r = bash(sh, f"{spoof}; echo END-{i}")
        assert r.text.endswith(f"END-{i}\n"), spoof
        assert r.meta["exitCode"] == 0, spoof
        assert r.meta["shellReset"] is False, spoof
        # Nothing of the dump spills over into the next call.
        expect(sh, f"echo next-{i}", f"next-{i}\n")
    expect(sh, 'echo "$KEEP"; f', "kept\nin-f\n")


# --- delivery of the command text -------------------------------------------------------


def test_background_job_leaves_no_notice_in_next_call(sh: shellport.Session) -> None:
    expect(sh, "sleep 0.2 &", "[no output]")
    # The job ends while this call runs: bash's "[1]+ Done" must not appear.
    expect(sh, "sleep 0.5; echo next", "next\n")
    expect(sh, "echo again", "again\n")


def test_script_like_delivery(sh: shellport.Session) -> None:
    expect(
        sh,
        "X=expanded\ncat <<'EOF'\nliteral $X\n\ttabbed\nEOF\ncat <<EOF\nvalue $X\nEOF",
        "literal $X\n\ttabbed\nvalue expanded\n",
    )
    expect(sh, "echo visible # a trailing comment", "visible\n")
    expect(sh, "echo 'bang!' \"!!\"", "bang! !!\n")
    expect(sh, "echo sync; sleep 0.1 & # trailing & and comment", "sync\n")
    long_word = "w" * 10_000
    expect(sh, f"echo {long_word}", long_word + "\n")
    expect(sh, "printf 'no final newline'", "no final newline")


def test_unbalanced_quote_returns_syntax_error_and_keeps_state(sh: shellport.Session) -> None:
    expect(sh, "export KEEP=yes; cd /", "[no output]")
    for broken in ("echo 'unbalanced", "if true; then echo x"):
        r = bash(sh, broken)
        assert r.meta["timedOut"] is False, broken  # it did not wait for more input
        assert r.meta["shellReset"] is False, broken
        assert r.meta["exitCode"] == 2, broken
        assert "unexpected" in r.text, broken
        assert r.text.endswith("\n[exit code: 2]"), broken
    expect(sh, 'echo "$KEEP"; pwd', "yes\n/\n")


# --- the shell itself ending ------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "marker", "code", "signal"),
    [
        ("exit 3", "[exit code: 3]", 3, None),
        ("set -e; false; echo not-reached", "[exit code: 1]", 1, None),
        ("kill -9 $$", "[killed by signal: SIGKILL]", None, "SIGKILL"),
        # Issue 10: a record the command writes into the shell's return FIFO
        # before it kills its shell does not choose the status; the kernel's does.
        ("printf 'd7\\0' >&12; kill -9 $$", "[killed by signal: SIGKILL]", None, "SIGKILL"),
        ("printf 'e\\0' >&12; exit 3", "[exit code: 3]", 3, None),
    ],
)
def test_shell_death_is_reported_and_next_call_gets_fresh_shell(
    sh: shellport.Session, tmp_path: Path, command: str, marker: str, code: int, signal: str | None
) -> None:
    (tmp_path / "sub").mkdir()
    expect(sh, "cd sub; export GONE=1; g() { :; }", "[no output]")
    r = bash(sh, command)
    assert r.text.splitlines()[0] == marker
    assert reset_note_in(r.text, sh.cwd)
    assert "not-reached" not in r.text
    assert r.meta["exitCode"] == code
    assert r.meta["signal"] == signal
    assert r.meta["shellReset"] is True
    expect(sh, 'pwd; echo "[$GONE]"; declare -F g || echo no-g', f"{sh.cwd}\n[]\nno-g\n")


def test_issue10_return_fifo_flood_does_not_stall_the_call(sh: shellport.Session) -> None:
    # More than the return FIFO holds (64 KiB), from a DEBUG trap while the
    # shell's loop runs and from the command itself: the call ends with its command.
    expect(sh, "kept=yes", "[no output]")
    r = bash(sh, """trap 'head -c 100000 /dev/zero | tr "\\0" x >&12' DEBUG; echo set""")
    assert r.meta["timedOut"] is False, r.text
    assert r.meta["shellReset"] is False, r.text
    r = bash(sh, "trap - DEBUG; for i in $(seq 1000); do printf '%0100d' 0 >&12; done; false")
    assert r.text == "[exit code: 1]"
    assert r.meta["timedOut"] is False
    assert r.meta["shellReset"] is False
    expect(sh, "echo $kept", "yes\n")


def _call_until_a_job_steals(
    sh: shellport.Session, fd: int, bs: int, what: str
) -> shellport.ToolResult:
    """Start a job reading the shell's descriptor fd through /proc, bs bytes
    at a time, then call `echo call; false` until a call is not the normal
    one (the runtime may read first); no call may reach its timeout."""
    job = (
        f"(exec 3</proc/$$/fd/{fd}; while :; do dd bs={bs} count=1 <&3 >/dev/null 2>&1; done) & "
        "sleep 0.2; "
    )
    for i in range(20):
        r = bash(sh, (job if i == 0 else "") + "echo call; false")
        assert r.meta["timedOut"] is False, r.text
        if r.text != "call\n[exit code: 1]":
            return r
    pytest.fail(f"no {what} was taken in 20 calls")


def test_issue10_stolen_report_ends_the_call_clearly(sh: shellport.Session) -> None:
    # A background job reading the shell's return FIFO takes the driver's
    # report: the call ends at once saying the status is unknown (or ends
    # normally when the runtime read the report first), never at the timeout.
    r = _call_until_a_job_steals(sh, fd=12, bs=64, what="report")
    assert "so the status is unknown; the shell was reset" in r.text, r.text
    assert r.meta["exitCode"] is None
    assert r.meta["shellReset"] is True
    expect(sh, "false; echo after", "after\n")


def test_issue10_lost_command_ends_the_call_clearly(sh: shellport.Session) -> None:
    # A background job reading the shell's control FIFO takes the wake-up of
    # a later call: that call ends saying so (Linux), never at the timeout.
    if not Path("/proc/self/syscall").exists():
        pytest.skip("no /proc/PID/syscall")
    r = _call_until_a_job_steals(sh, fd=11, bs=1, what="wake-up")
    assert r.text.startswith("[the shell was found waiting for a command"), r.text
    assert "whether the command ran, and its exit status, are unknown" in r.text
    assert r.meta["exitCode"] is None
    assert r.meta["shellReset"] is True
    expect(sh, "false; echo after", "after\n")


# --- timeouts ---------------------------------------------------------------------------


def test_read_under_timeout_resets_and_says_it_waited_for_input(
    short_rt: shellport.Runtime, tmp_path: Path
) -> None:
    with short_rt.session(tmp_path) as s:
        expect(s, "export KEEP=1; cd /", "[no output]")
        r = bash(s, "echo asking; read x; echo got $x")
        assert r.text.startswith("asking\n")
        assert "got" not in r.text
        assert "waiting for input from the terminal" in r.text
        assert f"\n[timed out after {SHORT_TIMEOUT_MS} ms]\n" in r.text
        assert reset_note_in(r.text, s.cwd)
        assert r.meta["timedOut"] is True
        assert r.meta["waitingForInput"] is True
        assert r.meta["shellReset"] is True
        expect(s, 'echo "[$KEEP]"; pwd', f"[]\n{s.cwd}\n")


def test_yes_under_timeout_is_bounded_and_spilled(
    short_rt: shellport.Runtime, tmp_path: Path
) -> None:
    with short_rt.session(tmp_path) as s:
        r = bash(s, "yes")
        assert r.meta["timedOut"] is True
        assert r.meta["truncated"] is True
        assert r.meta["shellReset"] is True
        assert r.meta["waitingForInput"] is False
        assert r.text.startswith("y\ny\ny\n")
        assert "[... " in r.text
        assert f"\n[timed out after {SHORT_TIMEOUT_MS} ms]\n" in r.text
        # 30000 characters of output (the default bound) plus the notices.
        assert len(r.text) < 32_000
        spill = Path(r.meta["spillPath"])
        assert str(spill) in r.text
        assert spill.stat().st_size > len(r.text)
        with spill.open("rb") as f:
            assert f.read(1 << 16) == b"y\n" * (1 << 15)
        expect(s, "echo alive", "alive\n")


# --- output -----------------------------------------------------------------------------


def test_large_output_keeps_head_and_tail_and_spills_everything(sh: shellport.Session) -> None:
    full = "".join(f"{i}\n" for i in range(1, 2_000_001))
    r = bash(sh, "seq 1 2000000")
    assert r.meta["exitCode"] == 0
    assert r.meta["truncated"] is True
    spill = Path(r.meta["spillPath"])
    assert spill.read_text() == full

    # Issue 11: the dialect of both bash tools: a note where the output was
    # cut, and a last line naming the spill file.
    m = re.search(
        r"^\[\.\.\. ([\d,]+) characters \(([\d,]+) lines\) left out \.\.\.\]\n", r.text, re.M
    )
    assert m is not None, r.text[:2000]
    end = f"[output truncated; full output: {spill}]"
    assert r.text.endswith("\n" + end)
    head, tail = r.text[: m.start()], r.text[m.end() : -len(end)]
    assert head.startswith("1\n2\n3\n")
    assert full.startswith(head)
    assert tail.endswith("1999999\n2000000\n")
    assert full.endswith(tail)
    left_out, lines = (int(g.replace(",", "")) for g in m.groups())
    assert left_out == len(full) - len(head) - len(tail)
    assert lines == 2_000_000 - head.count("\n") - tail.count("\n")
    assert len(head) + len(tail) <= 30_000


def test_binary_output_comes_back_as_valid_text(sh: shellport.Session, tmp_path: Path) -> None:
    data = bytes(range(256)) * 4 + random.Random(3).randbytes(2000)
    (tmp_path / "blob").write_bytes(data)
    r = bash(sh, "cat blob; echo; echo END")
    r.text.encode("utf-8")  # no lone surrogates: valid Unicode text
    m = re.search(r"\nEND\n\[(\d[\d,]*) bytes of the output were not valid UTF-8[^\]]*\]$", r.text)
    assert m is not None, r.text[-300:]
    assert r.meta["invalidUtf8"] == int(m.group(1).replace(",", "")) > 0
    assert "\x1b" not in r.text
    expect(sh, "echo ok", "ok\n")


def test_urandom_output_comes_back_as_valid_text(sh: shellport.Session) -> None:
    # Random bytes may open an escape sequence (about one run in fifty ends
    # inside an unterminated OSC or CSI), which a terminal, and the cleaner,
    # would let swallow the next text; ESC \ ends whatever is open, so END
    # must then come through.
    r = bash(sh, "head -c 3000 /dev/urandom; printf '\\033\\\\\\n'; echo END")
    r.text.encode("utf-8")
    assert "\nEND\n" in r.text
    assert r.meta["exitCode"] == 0
    expect(sh, "echo ok", "ok\n")


def test_escape_sequences_and_carriage_returns_are_cleaned(sh: shellport.Session) -> None:
    expect(
        sh,
        "printf '\\033[1;31mred\\033[0m plain\\n'"
        "; printf '10%%\\r50%%\\r100%%\\n'"
        "; printf 'abc\\rX\\n'"
        "; printf '\\033]0;window title\\007after-osc\\n'"
        "; printf 'tab\\there\\n'",
        "red plain\n100%\nXbc\nafter-osc\ntab\there\n",
    )


def test_unterminated_escape_string_does_not_swallow_the_rest(sh: shellport.Session) -> None:
    # An OSC or DCS never terminated ends at the end of its line; the next
    # lines and the next call read as usual (found in review of issue 11).
    expect(
        sh,
        "printf '\\033]0;title\\n'; echo after; printf '\\033Pdcs'; echo; echo last",
        "\nafter\n\nlast\n",
    )
    expect(sh, "echo next-call", "next-call\n")


# --- concurrency ------------------------------------------------------------------------


def barrier_command(me: str, other: str) -> str:
    """Create file me, then wait (bounded) for file other; say whether it came."""
    return (
        f"touch {me}; for i in $(seq 1 400); do [ -e {other} ] && break; sleep 0.05; done; "
        f"[ -e {other} ] && echo met-{other} || echo alone"
    )


async def test_two_sessions_run_in_parallel(prt: shellport.Runtime, tmp_path: Path) -> None:
    # Each command waits for the other's file: they both finish with "met"
    # only if they ran at the same time.
    with prt.session(tmp_path) as a, prt.session(tmp_path) as b:
        ra, rb = await asyncio.gather(
            a.acall("bash", {"command": barrier_command("a", "b")}),
            b.acall("bash", {"command": barrier_command("b", "a")}),
        )
        assert (ra.text, rb.text) == ("met-b\n", "met-a\n")


# Sending order is deterministic here: gather runs each acall up to its first
# await in turn, and acall writes its request before awaiting. The tool has a
# FIFO lock of its own, but the runtime hands each call to a goroutine, so
# without the runtime's per-session queue (tools.Serial) the calls reach that
# lock in whatever order the scheduler picks.
PIPELINED = 6
ROUNDS = 5


async def test_pipelined_calls_to_one_session_run_in_order(
    sh: shellport.Session, tmp_path: Path
) -> None:
    def command(r: int, i: int) -> str:
        return f"echo {r}.{i}-start >> order; sleep 0.02; echo {r}.{i}-end >> order; echo done-{i}"

    calls = range(1, PIPELINED + 1)
    expected: list[str] = []
    for r in range(ROUNDS):
        results = await asyncio.gather(
            *(sh.acall("bash", {"command": command(r, i)}) for i in calls)
        )
        assert [res.text for res in results] == [f"done-{i}\n" for i in calls]
        expected += [f"{r}.{i}-{part}" for i in calls for part in ("start", "end")]
    assert (tmp_path / "order").read_text().split() == expected


def test_calls_from_threads_do_not_interleave(sh: shellport.Session, tmp_path: Path) -> None:
    results: dict[int, str] = {}

    def worker(i: int) -> None:
        r = sh.call("bash", {"command": f"echo {i}-start >> log; sleep 0.1; echo {i}-end >> log"})
        results[i] = r.text

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == {0: "[no output]", 1: "[no output]", 2: "[no output]"}
    lines = (tmp_path / "log").read_text().split()
    assert len(lines) == 6
    for start, end in zip(lines[::2], lines[1::2]):
        assert start.endswith("-start")
        assert end == start.replace("-start", "-end")


async def test_cancelling_acall_resets_the_shell(sh: shellport.Session, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert (await sh.acall("bash", {"command": "export KEEP=1; cd sub"})).text == "[no output]"
    pidfile = tmp_path / "shellpid"
    task = asyncio.ensure_future(
        sh.acall("bash", {"command": "echo $$ > ../pid.tmp; mv ../pid.tmp ../shellpid; sleep 30"})
    )
    for _ in range(1500):  # the command is running once the file exists
        if pidfile.exists() or task.done():
            break
        await asyncio.sleep(0.01)
    assert pidfile.exists(), "the command never started"
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=15)  # a hang guard, not a speed check
    assert task in done
    assert task.cancelled()
    with pytest.raises(asyncio.CancelledError):
        task.result()

    # Issue 11: the next result says the shell was reset, in text and meta.
    r = await sh.acall("bash", {"command": 'echo "[$KEEP]"; pwd'})
    assert r.is_error is False
    assert r.text == (
        "[the previous call was cancelled, which reset the shell; this command ran in a fresh "
        f"shell in {sh.cwd}, without the earlier working directory, variables, functions or "
        f"background jobs]\n[]\n{sh.cwd}\n"
    )
    assert r.meta["shellReset"] is True
    assert (await sh.acall("bash", {"command": "true"})).meta["shellReset"] is False
    pid = read_pid(pidfile)
    wait_dead(pid, "the cancelled call's shell")


# --- closing ----------------------------------------------------------------------------

# A shell with background jobs of every kind that stays inside its session.
JOBS = (
    "echo $$ > shell.pid; "
    "sleep 300 & echo $! > job.pid; "
    "(trap '' HUP INT TERM; exec sleep 301) & echo $! > stubborn.pid; "
    "nohup sleep 302 >/dev/null 2>&1 & echo $! > nohup.pid; disown"
)
PIDFILES = ("shell.pid", "job.pid", "stubborn.pid", "nohup.pid")


def start_jobs(s: shellport.Session, where: Path) -> list[int]:
    expect(s, JOBS, "[no output]")
    pids = [read_pid(where / name) for name in PIDFILES]
    assert all(alive(pid) for pid in pids)
    return pids


def test_session_close_kills_shell_and_jobs(prt: shellport.Runtime, tmp_path: Path) -> None:
    s = prt.session(tmp_path)
    pids = start_jobs(s, tmp_path)
    s.close()
    for pid in pids:
        wait_dead(pid, "a process of the closed session")
    # The runtime goes on serving other sessions.
    with prt.session(tmp_path) as other:
        expect(other, "echo still-serving", "still-serving\n")


def test_runtime_close_kills_every_session_shell(transport: str, tmp_path: Path) -> None:
    rt = persistent_runtime(transport)
    try:
        pids: list[int] = []
        for name in ("one", "two"):
            where = tmp_path / name
            where.mkdir()
            pids += start_jobs(rt.session(where), where)
    finally:
        rt.close()
    for pid in pids:
        wait_dead(pid, "a process of the closed runtime")


def test_presentation(sh: shellport.Session) -> None:
    command = "echo hi; false"
    r = bash(sh, command)
    assert r.text == "hi\n[exit code: 1]"
    p = r.presentation
    assert p["title"] == command
    assert p["kind"] == "execute"
    # Issue 11: the card both bash tools give: terminal_info belongs to the
    # call's card, the result's carries terminal_exit and the fenced text.
    assert "terminal_info" not in p["_meta"]
    assert p["content"][-1]["content"]["text"] == "```console\nhi\n[exit code: 1]\n```"
    assert p["_meta"]["terminal_exit"]["exit_code"] == r.meta["exitCode"] == 1
    assert p["_meta"]["terminal_exit"]["signal"] is None
