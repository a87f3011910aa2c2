"""Just enough ELF and Mach-O reading to check what goes into a wheel.

For ELF (64-bit little-endian): the machine, whether there is a program
interpreter, the DT_NEEDED libraries and the GLIBC_x.y versions the file
requires. For Mach-O (64-bit, thin): the CPU and the minimum macOS version
from LC_BUILD_VERSION (or the older LC_VERSION_MIN_MACOSX). Standard library
only, so it runs on any build host.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64"}

_PT_INTERP = 3
_SHT_DYNAMIC = 6
_SHT_GNU_VERNEED = 0x6FFFFFFE
_DT_NEEDED = 1
_LC_BUILD_VERSION = 0x32
_LC_VERSION_MIN_MACOSX = 0x24
_PLATFORM_MACOS = 1


class FormatError(Exception):
    """The file is not the kind of binary the caller expected."""


@dataclass
class ELFInfo:
    machine: str
    interpreter: str | None
    needed: list[str] = field(default_factory=list)
    glibc: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def static(self) -> bool:
        return self.interpreter is None and not self.needed

    @property
    def max_glibc(self) -> tuple[int, ...] | None:
        return max(self.glibc) if self.glibc else None


@dataclass
class MachOInfo:
    cpu: str
    minos: tuple[int, int, int]


def kind(data: bytes) -> str | None:
    """Return "elf", "macho" or None for anything else."""
    if data[:4] == b"\x7fELF":
        return "elf"
    if data[:4] in (b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca"):
        return "macho"
    return None


def _cstr(data: bytes, off: int) -> str:
    end = data.index(b"\0", off)
    return data[off:end].decode("ascii", "replace")


def read_elf(data: bytes) -> ELFInfo:
    """Read an ELF64 little-endian file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise FormatError("not a 64-bit little-endian ELF file")
    (e_machine,) = struct.unpack_from("<H", data, 18)
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 32)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", data, 54)
    machine = ELF_MACHINES.get(e_machine, f"machine-{e_machine}")

    interpreter = None
    for i in range(e_phnum):
        off = e_phoff + i * e_phentsize
        p_type, _flags, p_offset, _va, _pa, p_filesz = struct.unpack_from("<IIQQQQ", data, off)
        if p_type == _PT_INTERP:
            interpreter = data[p_offset : p_offset + p_filesz].rstrip(b"\0").decode()

    sections = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        _name, sh_type, _f, _a, sh_offset, sh_size, sh_link, sh_info = struct.unpack_from(
            "<IIQQQQII", data, off
        )
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_info))

    info = ELFInfo(machine=machine, interpreter=interpreter)
    for sh_type, sh_offset, sh_size, sh_link, sh_info in sections:
        strtab = sections[sh_link][1] if sh_link < len(sections) else 0
        if sh_type == _SHT_DYNAMIC:
            for off in range(sh_offset, sh_offset + sh_size, 16):
                tag, val = struct.unpack_from("<qQ", data, off)
                if tag == _DT_NEEDED:
                    info.needed.append(_cstr(data, strtab + val))
        elif sh_type == _SHT_GNU_VERNEED:
            off = sh_offset
            for _ in range(sh_info):
                _ver, cnt, _file, aux, nxt = struct.unpack_from("<HHIII", data, off)
                aoff = off + aux
                for _ in range(cnt):
                    _hash, _flags, _other, name, anext = struct.unpack_from("<IHHII", data, aoff)
                    m = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)*)", _cstr(data, strtab + name))
                    if m:
                        info.glibc.append(tuple(int(x) for x in m.group(1).split(".")))
                    aoff += anext
                if nxt == 0:
                    break
                off += nxt
    return info


def read_macho(data: bytes) -> MachOInfo:
    """Read a thin 64-bit Mach-O file."""
    if data[:4] != b"\xcf\xfa\xed\xfe":
        raise FormatError("not a thin 64-bit little-endian Mach-O file (fat files are not used)")
    _magic, cputype, _sub, _ftype, ncmds, _size, _flags, _res = struct.unpack_from("<IiiIIIII", data, 0)
    cpu = MACHO_CPUS.get(cputype & 0xFFFFFFFF, f"cpu-{cputype:#x}")
    off = 32
    minos = None
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, off)
        if cmd == _LC_BUILD_VERSION:
            platform, version = struct.unpack_from("<II", data, off + 8)
            if platform != _PLATFORM_MACOS:
                raise FormatError(f"LC_BUILD_VERSION names platform {platform}, not macOS")
            minos = _macho_version(version)
        elif cmd == _LC_VERSION_MIN_MACOSX and minos is None:
            (version,) = struct.unpack_from("<I", data, off + 8)
            minos = _macho_version(version)
        off += cmdsize
    if minos is None:
        raise FormatError("no LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX load command")
    return MachOInfo(cpu=cpu, minos=minos)


def _macho_version(v: int) -> tuple[int, int, int]:
    return (v >> 16, (v >> 8) & 0xFF, v & 0xFF)
