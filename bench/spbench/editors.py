"""The editor case: view and str_replace near the end of a large file.

Contenders: shellport's str_replace_editor (both transports), OpenHands'
editor (openhands-aci's OHEditor, its size limit raised so it accepts the
file at all) and a plain Python baseline that reads, replaces and writes the
whole file. Each operation runs in a fresh child so that its peak RSS is its
own; the parent checks the file afterwards.
"""

from __future__ import annotations

import os
import time
from typing import Any

from . import procs

CONTENDERS = ("shellport-library", "shellport-process", "openhands", "python-baseline")
NEEDS = {"openhands": "openhands-aci"}


def line(i: int) -> str:
    """Line i (1-based) of the generated file: unique, source-like, ~68 bytes."""
    return f"    value_{i:08d} = compute({i % 977}, 'k{i * 2654435761 % 4294967296:08x}')  # row\n"


def make_file(path: str, size: int) -> dict[str, Any]:
    """Write a UTF-8 text file of about size bytes; return its facts and the edit."""
    n = 0
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        buf = []
        while written < size:
            n += 1
            s = line(n)
            buf.append(s)
            written += len(s)
            if len(buf) >= 4096:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))
    target = max(1, n - 50)  # "near the end": 50 lines before the last
    old = line(target).rstrip("\n").strip()
    new = old.replace("compute(", "compute_v2(")
    return {
        "bytes": written,
        "lines": n,
        "target_line": target,
        "old_str": old,
        "new_str": new,
        "view_range": [n - 19, n],
        "last_line": line(n).strip(),
    }


def check_after(path: str, facts: dict[str, Any], op: str) -> tuple[bool, str]:
    """Did the operation leave the file exactly as it should be?"""
    size = os.path.getsize(path)
    delta = len(facts["new_str"]) - len(facts["old_str"]) if op == "str_replace" else 0
    if size != facts["bytes"] + delta:
        return False, f"file is {size} bytes, expected {facts['bytes'] + delta}"
    with open(path, "rb") as f:
        f.seek(max(0, size - 200 * 70))
        tail = f.read().decode("utf-8")
    if op == "str_replace":
        want = line(facts["target_line"]).replace("compute(", "compute_v2(")
        if want not in tail or line(facts["target_line"]) in tail:
            return False, "the replaced line is not in the file as expected"
    return True, ""


def disk_costs(data: bytes, work_dir: str) -> dict[str, float]:
    """Seconds to write data to a new file in work_dir, without and with
    fsync: one sample of how much of an atomic, durable edit is the disk's
    share on this machine. The editor case takes one in each repetition,
    among the contenders (see cases_child.editor)."""
    out: dict[str, float] = {}
    tmp = os.path.join(work_dir, "disk-probe.tmp")
    for key in ("write", "write_fsync"):
        t = time.perf_counter()
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            if key == "write_fsync":
                os.fsync(f.fileno())
        out[key] = time.perf_counter() - t
        os.unlink(tmp)
    return out


def _baseline(op: str, path: str, facts: dict[str, Any]) -> str:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if op == "view":
        a, b = facts["view_range"]
        lines = text.split("\n")
        return "\n".join(f"{i:6d}\t{lines[i - 1]}" for i in range(a, b + 1))
    old, new = facts["old_str"], facts["new_str"]
    if text.count(old) != 1:
        raise RuntimeError("old_str is not unique")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))
    return "edited"


def run_child(spec: dict[str, Any]) -> dict[str, Any]:
    name, op, path, facts = spec["contender"], spec["op"], spec["path"], spec["facts"]
    tiny = os.path.join(os.path.dirname(path), "warm.txt")
    with open(tiny, "w") as f:
        f.write("warm\n")
    args: dict[str, Any] = {"command": op, "path": path}
    if op == "view":
        args["view_range"] = facts["view_range"]
    else:
        args.update(old_str=facts["old_str"], new_str=facts["new_str"])
    runtime_pid = None
    if name.startswith("shellport-"):
        import shellport

        rt = shellport.Runtime(transport=name.split("-", 1)[1])
        s = rt.session(cwd=os.path.dirname(path))
        s.call("str_replace_editor", {"command": "view", "path": tiny})
        if name == "shellport-process":
            pids = procs.children_named(os.getpid(), "shellport")
            runtime_pid = max(pids) if pids else None

        def do() -> tuple[str, bool]:
            r = s.call("str_replace_editor", args)
            return r.text, r.is_error

    elif name == "openhands":
        from openhands_aci.editor import OHEditor
        from openhands_aci.editor.exceptions import ToolError

        ed = OHEditor(max_file_size_mb=max(64, spec["facts"]["bytes"] // (1 << 20) + 8))
        ed(command="view", path=tiny)

        def do() -> tuple[str, bool]:
            try:
                return str(
                    ed(
                        command=op,
                        path=path,
                        **{k: v for k, v in args.items() if k not in ("command", "path")},
                    ).output
                ), False
            except ToolError as exc:
                return str(exc.message), True

    else:
        _baseline("view", tiny, {"view_range": [1, 1]})

        def do() -> tuple[str, bool]:
            return _baseline(op, path, facts), False

    runtime_rss_before = procs.rss(runtime_pid) if runtime_pid else None
    before = procs.self_peak_rss()
    t = time.perf_counter()
    text, is_error = do()
    elapsed = time.perf_counter() - t
    out = {
        "seconds": elapsed,
        "host_peak_before": before,
        "host_peak": procs.self_peak_rss(),
        "runtime_rss_before": runtime_rss_before,
        "runtime_peak": procs.peak_rss(runtime_pid) if runtime_pid else None,
        "is_error": is_error,
        "text_head": text[:300],
        "view_ok": (facts["last_line"] in text) if op == "view" else None,
    }
    if name.startswith("shellport-"):
        rt.close()
    return out
