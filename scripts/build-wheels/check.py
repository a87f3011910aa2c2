"""Check a built wheel: name, tags, RECORD, entry modes, and the native files
it carries (architecture, glibc baseline, static executables, macOS minimum),
then, for manylinux wheels, what auditwheel says about it."""

from __future__ import annotations

import calendar
import csv
import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
import zipfile
from pathlib import Path

from binfmt import kind, read_elf, read_macho
from targets import BASH_TURN, EXE, HELPER, ROOT, TARGETS, Target
from wheelfile import record_hash

GLIBC_BASELINE = (2, 17)
WHEEL_RE = re.compile(r"^(?P<name>[a-z0-9_]+)-(?P<version>[^-]+)-py3-none-(?P<plat>[A-Za-z0-9_.]+)\.whl$")
PY_REQUIRED = ["shellport/__init__.py", "shellport/_native.py", "shellport/_cli.py", "shellport/py.typed"]


class CheckError(Exception):
    """A wheel is not what it must be."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def target_of(wheel: Path) -> Target:
    m = WHEEL_RE.match(wheel.name)
    if not m:
        raise CheckError(f"{wheel.name}: not a py3-none-<platform> wheel name")
    plat = m.group("plat")
    for t in TARGETS.values():
        if plat == t.platform or (t.platform == "macosx" and re.fullmatch(rf"macosx_\d+_\d+_{t.arch}", plat)):
            return t
    raise CheckError(f"{wheel.name}: platform {plat!r} is none of the targets")


def native_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        return [n.split("/")[-1] for n in zf.namelist() if n.startswith("shellport/_native/")]


def wheel_epoch(wheel: Path) -> int:
    """The SOURCE_DATE_EPOCH a wheel was built with (its entries' UTC time)."""
    with zipfile.ZipFile(wheel) as zf:
        stamp = zf.infolist()[0].date_time
    return calendar.timegm((*stamp, 0, 0, 0))


def diff(a: Path, b: Path) -> str:
    """Name the first entry in which two wheels differ."""
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        ia, ib = za.infolist(), zb.infolist()
        if [i.filename for i in ia] != [i.filename for i in ib]:
            return "different entry lists"
        for x, y in zip(ia, ib):
            if za.read(x) != zb.read(y):
                return f"contents of {x.filename}"
            attrs = ("date_time", "external_attr", "compress_type", "create_system")
            if [getattr(x, a) for a in attrs] != [getattr(y, a) for a in attrs]:
                return f"attributes of {x.filename}"
    return "zip framing"


def check(wheel: Path, *, require_auditwheel: bool = False) -> None:
    t = target_of(wheel)
    m = WHEEL_RE.match(wheel.name)
    assert m is not None
    name, version, plat = m.group("name"), m.group("version"), m.group("plat")
    dist_info = f"{name}-{version}.dist-info"
    problems: list[str] = []
    with zipfile.ZipFile(wheel) as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        data = {i.filename: zf.read(i) for i in infos}
    problems += _check_layout(names, dist_info)
    problems += _check_record(data, dist_info)
    problems += _check_wheel_file(data[f"{dist_info}/WHEEL"].decode(), plat)
    problems += _check_modes(infos)
    eps = data.get(f"{dist_info}/entry_points.txt", b"").decode()
    if "shellport = shellport._cli:main" not in eps:
        problems.append("entry_points.txt lacks the shellport console script")
    natives = {n.split("/")[-1]: d for n, d in data.items() if n.startswith("shellport/_native/")}
    problems += _check_natives(t, natives, plat)
    if problems:
        raise CheckError(f"{wheel.name}:\n  " + "\n  ".join(problems))
    if t.manylinux:
        _auditwheel(wheel, t, require_auditwheel)
    print(f"ok: {wheel.name} ({', '.join(sorted(natives))})")


def _check_layout(names: list[str], dist_info: str) -> list[str]:
    problems = [f"missing {p}" for p in PY_REQUIRED if p not in names]
    if len(set(names)) != len(names):
        problems.append("duplicate entries")
    body = [n for n in names if not n.startswith(dist_info + "/")]
    tail = [n for n in names if n.startswith(dist_info + "/")]
    if names != sorted(body) + sorted(n for n in tail if not n.endswith("/RECORD")) + [f"{dist_info}/RECORD"]:
        problems.append("entries are not sorted with .dist-info and then RECORD last")
    stray = [n for n in body if not n.startswith("shellport/") or "__pycache__" in n or n.endswith(".pyc")]
    problems += [f"unexpected entry {n}" for n in stray]
    return problems


def _check_record(data: dict[str, bytes], dist_info: str) -> list[str]:
    record_path = f"{dist_info}/RECORD"
    if record_path not in data:
        return ["no RECORD"]
    rows = list(csv.reader(io.StringIO(data[record_path].decode())))
    listed = {r[0]: r for r in rows}
    problems = []
    if set(listed) != set(data):
        problems.append(f"RECORD lists {sorted(set(listed) ^ set(data))} wrongly")
    for path, row in listed.items():
        if path == record_path:
            if row[1:] != ["", ""]:
                problems.append("RECORD's own row must have no hash")
        elif path in data and row[1:] != [record_hash(data[path]), str(len(data[path]))]:
            problems.append(f"RECORD hash or size wrong for {path}")
    return problems


def _check_wheel_file(text: str, plat: str) -> list[str]:
    fields = [line.split(": ", 1) for line in text.splitlines() if ": " in line]
    tags = {v for k, v in fields if k == "Tag"}
    problems = []
    if ("Root-Is-Purelib", "false") not in [tuple(f) for f in fields]:
        problems.append("WHEEL must say Root-Is-Purelib: false")
    if tags != {f"py3-none-{p}" for p in plat.split(".")}:
        problems.append(f"WHEEL tags {sorted(tags)} do not match the file name")
    return problems


def _check_modes(infos: list[zipfile.ZipInfo]) -> list[str]:
    problems = []
    stamps = {i.date_time for i in infos}
    if len(stamps) != 1:
        problems.append("entries carry different timestamps")
    for i in infos:
        mode = i.external_attr >> 16
        want = 0o755 if i.filename in (f"shellport/_native/{EXE}", f"shellport/_native/{HELPER}") else 0o644
        if i.create_system != 3 or not stat.S_ISREG(mode) or stat.S_IMODE(mode) != want:
            problems.append(f"{i.filename}: mode {mode:o}, want regular file {want:o}")
    return problems


def _check_natives(t: Target, natives: dict[str, bytes], plat: str) -> list[str]:
    want = {EXE, HELPER, BASH_TURN} if t.goos == "linux" else {EXE, HELPER}
    optional = {t.libname} if t.library else set()
    problems = []
    if t.manylinux and t.libname not in natives:
        problems.append(f"manylinux wheels must carry {t.libname}")
    extra = set(natives) - want - optional
    problems += [f"unexpected native file {n}" for n in sorted(extra)]
    problems += [f"missing native file {n}" for n in sorted(want - set(natives))]
    newest = (0, 0, 0)
    for fname, blob in sorted(natives.items()):
        k = kind(blob)
        if t.goos == "linux":
            if k != "elf":
                problems.append(f"{fname} is not an ELF file")
                continue
            info = read_elf(blob)
            if info.machine != t.arch:
                problems.append(f"{fname} is built for {info.machine}, not {t.arch}")
            if fname in (EXE, HELPER) and not info.static:
                problems.append(f"{fname} must be static (needs {info.interpreter} {info.needed})")
            if fname == BASH_TURN and (info.needed or info.max_glibc is not None):
                # It runs inside bash: what it calls resolves in bash's own
                # C library, glibc or musl, so it may name none.
                problems.append(f"{fname} needs {info.needed} {info.max_glibc}; it must need no library")
            if fname == t.libname:
                if set(info.needed) - {"libc.so.6"}:
                    problems.append(f"{fname} needs {info.needed}; only libc.so.6 is allowed")
                if info.max_glibc is None or info.max_glibc > GLIBC_BASELINE:
                    problems.append(f"{fname} needs GLIBC_{'.'.join(map(str, info.max_glibc or ()))} > 2.17")
        else:
            if k != "macho":
                problems.append(f"{fname} is not a Mach-O file")
                continue
            info_m = read_macho(blob)
            if info_m.cpu != t.arch:
                problems.append(f"{fname} is built for {info_m.cpu}, not {t.arch}")
            newest = max(newest, info_m.minos)
    if t.goos == "darwin" and plat != f"macosx_{newest[0]}_{newest[1]}_{t.arch}":
        problems.append(f"tag {plat} does not match the binaries' minimum macOS {newest[0]}.{newest[1]}")
    return problems


def find_auditwheel() -> str | None:
    for candidate in (os.environ.get("AUDITWHEEL"), str(ROOT / "build" / "tools-venv" / "bin" / "auditwheel"),
                      shutil.which("auditwheel")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _auditwheel(wheel: Path, t: Target, required: bool) -> None:
    tool = find_auditwheel()
    if tool is None:
        if required:
            raise CheckError("auditwheel is not installed (make wheel-tools installs it in build/tools-venv)")
        print(f"note: auditwheel not found; {wheel.name} not audited")
        return
    proc = subprocess.run([tool, "show", str(wheel)], capture_output=True, text=True)
    out = " ".join((proc.stdout + proc.stderr).split())
    # auditwheel names the oldest policy the wheel satisfies; anything at
    # or below glibc 2.17 means manylinux_2_17 (manylinux2014) compatible.
    m = re.search(rf'platform tag: "manylinux_(\d+)_(\d+)_{t.arch}"', out)
    if proc.returncode != 0 or m is None or (int(m.group(1)), int(m.group(2))) > GLIBC_BASELINE:
        raise CheckError(f"auditwheel does not find {wheel.name} manylinux_2_17_{t.arch} compatible:\n"
                         f"{proc.stdout}{proc.stderr}")
    print(f"auditwheel: {out}")
