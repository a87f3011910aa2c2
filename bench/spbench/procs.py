"""Process facts: peak RSS, current RSS, open fds, descendants, leftovers.

Linux reads /proc; elsewhere psutil is used when it is installed, and a
fact that cannot be read is None (the report prints "n/a").
"""

from __future__ import annotations

import os
import resource
import sys
import time

try:  # bench-only dependency; the smoke run works without it
    import psutil  # type: ignore
except ImportError:  # pragma: no cover
    psutil = None

_PROC = os.path.isdir("/proc/self")


def self_peak_rss() -> int:
    """This process's peak RSS in bytes.

    On Linux this is VmHWM, which starts afresh at exec; getrusage's
    ru_maxrss is not used there because it carries over the parent's RSS
    from before the exec, so a child's "peak" would include its parent.
    """
    if _PROC:
        hwm = peak_rss(os.getpid())
        if hwm is not None:
            return hwm
    ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return ru if sys.platform == "darwin" else ru * 1024


def _status(pid: int) -> dict[str, str]:
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def _kb(v: str | None) -> int | None:
    return int(v.split()[0]) * 1024 if v else None


def rss(pid: int) -> int | None:
    """Current RSS of pid in bytes."""
    try:
        if _PROC:
            return _kb(_status(pid).get("VmRSS"))
        if psutil:
            return int(psutil.Process(pid).memory_info().rss)
    except (OSError, Exception):
        return None
    return None


def peak_rss(pid: int) -> int | None:
    """Peak RSS (high-water mark) of pid in bytes; Linux only."""
    try:
        if _PROC:
            return _kb(_status(pid).get("VmHWM"))
    except OSError:
        return None
    return None


def fd_count(pid: int) -> int | None:
    try:
        if _PROC:
            return len(os.listdir(f"/proc/{pid}/fd"))
        if psutil:
            return int(psutil.Process(pid).num_fds())
    except (OSError, Exception):
        return None
    return None


def _table() -> dict[int, tuple[int, str, str]]:
    """pid -> (ppid, state, start-time token) for every process."""
    out: dict[int, tuple[int, str, str]] = {}
    if _PROC:
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    data = f.read()
            except OSError:
                continue
            rest = data[data.rfind(")") + 2 :].split()
            out[int(name)] = (int(rest[1]), rest[0], rest[19])
    elif psutil:
        for p in psutil.process_iter(["ppid", "status", "create_time"]):
            info = p.info
            out[p.pid] = (
                info["ppid"] or 0,
                str(info["status"]),
                str(info["create_time"]),
            )
    return out


def descendants(root: int) -> dict[int, str]:
    """Every live descendant of root: pid -> start-time token (to spot pid reuse)."""
    table = _table()
    kids: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        kids.setdefault(ppid, []).append(pid)
    out: dict[int, str] = {}
    todo = list(kids.get(root, []))
    while todo:
        pid = todo.pop()
        out[pid] = table[pid][2]
        todo.extend(kids.get(pid, []))
    return out


def survivors(recorded: dict[int, str]) -> tuple[list[int], list[int]]:
    """Of the recorded processes, those still alive and those left as zombies."""
    table = _table()
    alive, zombies = [], []
    for pid, start in recorded.items():
        row = table.get(pid)
        if row is None or row[2] != start:
            continue  # gone (or the pid was reused by someone else)
        (zombies if row[1] in ("Z", "zombie") else alive).append(pid)
    return sorted(alive), sorted(zombies)


def children_named(root: int, name: str) -> set[int]:
    """Descendants of root whose executable's base name is name."""
    out = set()
    for pid in descendants(root):
        try:
            if _PROC:
                exe = os.readlink(f"/proc/{pid}/exe")
            elif psutil:
                exe = psutil.Process(pid).exe()
            else:
                continue
        except (OSError, Exception):
            continue
        if os.path.basename(exe) == name:
            out.add(pid)
    return out


def idle_spares(pids: set[int] | dict[int, str]) -> set[int]:
    """Those of pids that are spare supervisors no program was given yet, or
    the spawners that fork them.

    The shellport executable keeps one supervisor started ahead of the next
    shell or command (issue 16), forked by a spawner it exec'd once: both
    are the runtime's, not a session's, so they outlive a session's close
    and die with the runtime. A spare that was claimed has its program as a
    child; an idle one, and a spawner, have none. A forked spare keeps the
    spawner's command line. Linux only.
    """
    out = set()
    if not _PROC:
        return out
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            if b"--spare" not in args and b"--spawner" not in args:
                continue
            children = b""
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    children += f.read()
        except OSError:
            continue
        if not children.strip():
            out.add(pid)
    return out


def cpu_seconds(root: int) -> float | None:
    """User + system CPU time of root and every live descendant, in seconds (Linux).

    Read from each process's own CPU clock (clock_getcpuclockid's, every
    thread's time to the nanosecond, the threads that ended included), not
    from /proc/PID/stat, whose clock ticks of 10 ms made a repetition of 200
    floor calls (about 16 ms of CPU) read 1 or 2 ticks: the floor's CPU per
    call moved from 79 to 136 µs between two runs.
    """
    if not _PROC:
        return None
    total = 0.0
    for pid in [root, *descendants(root)]:
        try:
            total += time.clock_gettime(_cpu_clock(pid))
        except OSError:
            continue  # ended since it was listed
    return total


def _cpu_clock(pid: int) -> int:
    """The clock id of pid's CPU clock, as clock_getcpuclockid(3) makes it
    (Linux: CPUCLOCK_SCHED of the whole process, its pid inverted above)."""
    return ((~pid) << 3) | 2


def private_bytes(pid: int) -> int | None:
    """Memory only pid holds (Private_Clean + Private_Dirty of smaps_rollup), Linux only."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            total = 0
            for line in f:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
            return total
    except OSError:
        return None
