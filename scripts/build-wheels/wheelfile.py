"""Write a wheel whose bytes depend only on its contents and SOURCE_DATE_EPOCH.

Entries are sorted with the .dist-info directory last and RECORD last of
all; every entry gets the same timestamp, a fixed mode (0755 for
executables, 0644 otherwise) with the regular-file type bit set — pip only
restores the execute bit when S_IFREG is present — and the same deflate
level. Nothing from the build machine (owner, umask, mtime, file order)
reaches the archive.
"""

from __future__ import annotations

import base64
import hashlib
import stat
import time
import zipfile
from dataclasses import dataclass

ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z, the earliest time a zip entry can hold


@dataclass(frozen=True)
class Entry:
    path: str  # archive path, forward slashes
    data: bytes
    executable: bool = False


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _zipinfo(path: str, executable: bool, epoch: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(path, date_time=time.gmtime(max(epoch, ZIP_EPOCH))[:6])
    info.create_system = 3  # Unix, so external_attr carries a mode
    mode = 0o755 if executable else 0o644
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_wheel(path: str, entries: list[Entry], dist_info: str, epoch: int) -> None:
    """Write entries plus dist_info/RECORD to path."""
    names = [e.path for e in entries]
    if len(set(names)) != len(names):
        raise ValueError("duplicate wheel entries")
    record_path = f"{dist_info}/RECORD"
    if record_path in names:
        raise ValueError("RECORD is written by write_wheel")

    def order(e: Entry) -> tuple[int, str]:
        return (1 if e.path.startswith(dist_info + "/") else 0, e.path)

    ordered = sorted(entries, key=order)
    lines = [f"{e.path},{record_hash(e.data)},{len(e.data)}" for e in ordered]
    lines.append(f"{record_path},,")
    record = ("\n".join(lines) + "\n").encode()
    with zipfile.ZipFile(path, "w") as zf:
        for e in [*ordered, Entry(record_path, record)]:
            zf.writestr(_zipinfo(e.path, e.executable, epoch), e.data, compresslevel=6)
