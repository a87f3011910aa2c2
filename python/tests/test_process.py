"""What only the process transport has: a child that can die, and argv of our choosing."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

import shellport
from conftest import CONFIG, binary_path, wait_until

SH = "/bin/sh"


def test_runtime_process_killed_mid_call(tmp_path: Path) -> None:
    rt = shellport.Runtime(CONFIG, "process")
    s = rt.session(tmp_path)
    transport = rt._connection().transport
    assert isinstance(transport, shellport.StdioTransport)
    conn = rt._connection()
    import threading

    errors: list[BaseException] = []

    def call() -> None:
        try:
            s.call("_sleep", {"ms": 120_000})
        except BaseException as exc:
            errors.append(exc)

    t = threading.Thread(target=call)
    t.start()
    wait_until(lambda: conn.pending_count() == 1, "the call to start")
    os.kill(transport.pid, signal.SIGKILL)
    t.join(15)
    assert not t.is_alive()
    assert isinstance(errors[0], shellport.ProcessExited)
    assert errors[0].returncode == -signal.SIGKILL
    assert "killed by signal 9" in str(errors[0])
    with pytest.raises(shellport.ProcessExited):
        s.call("_echo", {})
    rt.close()


def test_command_that_exits_at_once() -> None:
    argv = [SH, "-c", "echo 'cannot reach the sandbox' >&2; exit 3"]
    with pytest.raises(shellport.ProcessExited, match="cannot reach the sandbox") as info:
        shellport.Runtime(CONFIG, argv).tools()
    assert info.value.returncode == 3
    assert "cannot reach the sandbox" in info.value.stderr


def test_command_that_prints_garbage() -> None:
    argv = [SH, "-c", "echo 'Welcome to the container!'; cat >/dev/null"]
    with pytest.raises(shellport.ProtocolError, match="Welcome to the container"):
        shellport.Runtime(CONFIG, argv).tools()


def test_command_that_does_not_exist() -> None:
    with pytest.raises(shellport.BinaryNotFound, match="no-such-shellport-binary"):
        shellport.Runtime(CONFIG, ["/no-such-shellport-binary", "serve"]).tools()


def test_executable_refuses_another_version() -> None:
    argv = [binary_path(), "serve", "--expect-version", "9.9.9"]
    with pytest.raises(shellport.ProcessExited) as info:
        shellport.Runtime(CONFIG, argv).tools()
    assert "9.9.9" in info.value.stderr
    assert shellport.__version__ in info.value.stderr


def test_stderr_ring_is_bounded() -> None:
    # 1 MB of stderr before dying: only the tail is kept.
    script = "head -c 1000000 /dev/zero | tr '\\0' 'e' >&2; echo THE-END >&2; exit 1"
    with pytest.raises(shellport.ProcessExited) as info:
        shellport.Runtime(CONFIG, [SH, "-c", script]).tools()
    assert info.value.stderr.endswith("THE-END")
    assert len(info.value.stderr) < 64 << 10


def test_console_script_runs_the_executable() -> None:
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", "from shellport._cli import main; main()", "version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.strip() == shellport.__version__


def test_python_dash_m_shellport_runs_the_executable() -> None:
    # Issue 11: `python -m shellport` is the console script.
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "shellport", "version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.strip() == shellport.__version__


def _kill_runtime(rt: shellport.Runtime) -> None:
    transport = rt._connection().transport
    assert isinstance(transport, shellport.StdioTransport)
    os.kill(transport.pid, signal.SIGKILL)


def test_issue11_leaving_a_session_block_after_the_runtime_died(tmp_path: Path) -> None:
    # The caller handled ProcessExited inside the block; leaving it must
    # not raise it a second time (the session died with the runtime).
    handled = 0
    with shellport.Runtime(CONFIG, "process") as rt:
        with rt.session(tmp_path) as s:
            s.call("_echo", {})
            _kill_runtime(rt)
            with pytest.raises(shellport.ProcessExited):
                s.call("_sleep", {"ms": 60_000})
            handled += 1
        assert "closed" in repr(s)
        s.close()  # still a no-op
        # Everything else still says what happened.
        with pytest.raises(shellport.ProcessExited):
            rt.tools()
    assert handled == 1


async def test_issue11_leaving_an_async_session_block_after_the_runtime_died(
    tmp_path: Path,
) -> None:
    async with shellport.Runtime(CONFIG, "process") as rt, rt.session(tmp_path) as s:
        _kill_runtime(rt)
        with pytest.raises(shellport.ProcessExited):
            await s.acall("_sleep", {"ms": 60_000})


def test_issue11_an_unhandled_death_is_the_exception_that_leaves_the_block(
    tmp_path: Path,
) -> None:
    def body(rt: shellport.Runtime) -> None:
        with rt.session(tmp_path) as s:
            _kill_runtime(rt)
            s.call("_sleep", {"ms": 60_000})

    with shellport.Runtime(CONFIG, "process") as rt, pytest.raises(shellport.ProcessExited):
        body(rt)


def test_issue16_a_reply_is_read_without_a_chunk_sized_buffer_each_time(tmp_path: Path) -> None:
    """Replies are read into one buffer made at start, not a new 256 KiB object per read.

    A new one has malloc map fresh memory and unmap it again on every reply
    (three system calls and a page fault each): tracemalloc sees it as a
    peak of the whole chunk above what the calls keep.
    """
    import tracemalloc

    from shellport._transports import stdio

    with shellport.Runtime(CONFIG, "process") as rt:
        session = rt.session(tmp_path)
        session.call("_echo", {"n": 0})
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            for n in range(20):
                assert session.call("_echo", {"n": n}).text == f'{{"n":{n}}}'
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
    assert peak < stdio._CHUNK // 4, f"{peak} bytes at the peak of 20 calls"


def test_issue16_receive_and_stderr_reads_do_not_make_a_chunk_sized_object_each_time() -> None:
    """The reader thread's way (receive) reads stdout into the transport's one
    buffer, and stderr in small pieces: a new 256 KiB object per read has
    malloc map and unmap it every time (as for replies read by a blocking call).

    The child is a real process writing 40 lines to stdout, each after 64 KiB
    on stderr, so every line comes with a full stderr pipe to drain.
    """
    import tracemalloc

    from shellport import StdioTransport
    from shellport._transports import stdio

    child = (
        "import os, sys\n"
        "sys.stdin.readline()\n"
        "for n in range(40):\n"
        "    os.write(2, b'e' * 65536)\n"
        "    os.write(1, b'{\"n\":%d}\\n' % n)\n"
        "sys.stdin.readline()\n"
    )
    with StdioTransport([sys.executable, "-c", child]) as transport:
        transport.send(b"{}")  # start
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            got: list[bytes] = []
            deadline = time.monotonic() + 10
            while len(got) < 40 and time.monotonic() < deadline:
                line = transport.receive(1.0)  # None: a round that brought stderr only
                if line is not None:
                    got.append(line)
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        transport.send(b"{}")  # end
    assert got == [b'{"n":%d}' % n for n in range(40)]
    assert peak < stdio._CHUNK // 4, f"{peak} bytes at the peak of 40 reads"
