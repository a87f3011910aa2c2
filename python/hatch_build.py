"""The wheel build hook: a PEP 517 build (``pip wheel ./python``, ``python -m
build --wheel python``) makes a platform wheel for this machine, or refuses.

shellport's wheel carries native files (the Go library and executable, the C
spawn helper) that pip cannot build. Without this hook hatchling would tag
whatever sits in ``src/shellport/_native/`` as ``py3-none-any``: a wheel that
claims to run everywhere with x86_64 binaries inside, or, from a clean clone,
a wheel with none. So a standard wheel build:

- refuses when the native files of this machine are missing or were built
  for another architecture, naming the commands that build them (``make
  native`` for this machine, ``make wheels`` for the release wheels);
- otherwise tags the wheel ``py3-none-<this platform>`` (``linux_x86_64``,
  ``macosx_12_0_arm64``): installable here, and not mistakable for a release
  wheel, whose manylinux/musllinux tags only ``make wheels`` gives after its
  checks (docs/PACKAGING.md).

Editable installs (``pip install -e``) are left alone: they add a path to
``src/`` and load the native files from there at run time.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HOW = (
    "build them first with `make native` in the repository (then `pip wheel ./python` "
    "makes a wheel for this machine), or build the release wheels with `make wheels` "
    "(docs/PACKAGING.md)"
)

# ELF e_machine and Mach-O cputype of each architecture, as platform.machine() says it.
_ELF = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183}
_MACHO = {"x86_64": 0x01000007, "arm64": 0x0100000C, "aarch64": 0x0100000C}


class NativeWheelHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        native = Path(self.root) / "src" / "shellport" / "_native"
        check_natives(native)
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{platform_tag(Path(self.root))}"


def required_files() -> list[str]:
    files = ["shellport", "shellport-spawn-helper"]
    if sys.platform == "darwin":
        files.append("libshellport.dylib")
    elif platform.libc_ver()[0] == "glibc":
        files.append("libshellport.so")  # musl cannot load a Go library (golang/go#54805)
    return files


def check_natives(native: Path) -> None:
    machine = platform.machine().lower()
    missing = [name for name in required_files() if not (native / name).is_file()]
    if missing:
        raise RuntimeError(
            f"cannot build a shellport wheel: {', '.join(missing)} missing from {native}; {HOW}"
        )
    want = (_MACHO if sys.platform == "darwin" else _ELF).get(machine)
    for name in required_files():
        arch = _arch_of((native / name).read_bytes()[:64])
        if arch is not None and arch != want:
            raise RuntimeError(
                f"cannot build a shellport wheel: {native / name} is not built for this "
                f"machine ({machine}); {HOW}"
            )
    for name in ("shellport", "shellport-spawn-helper"):
        if not os.access(native / name, os.X_OK):
            raise RuntimeError(f"cannot build a shellport wheel: {native / name} is not executable")


def _arch_of(head: bytes) -> int | None:
    """The ELF machine or Mach-O CPU type of a file header, or None if neither."""
    if head[:4] == b"\x7fELF" and len(head) >= 20:
        order = "little" if head[5] == 1 else "big"
        return int.from_bytes(head[18:20], order)
    if head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe") and len(head) >= 8:
        return int.from_bytes(head[4:8], "little")
    return None


def platform_tag(root: Path) -> str:
    """This machine's platform tag: linux_ARCH, or macosx_MAJOR_0_ARCH from the recipe."""
    machine = platform.machine().lower()
    if sys.platform == "darwin":
        recipe = root.parent / "scripts" / "build-wheels" / "recipe.json"
        macos_min = json.loads(recipe.read_text())["macos_min"] if recipe.is_file() else "12.0"
        return f"macosx_{macos_min.replace('.', '_')}_{'arm64' if machine == 'arm64' else 'x86_64'}"
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return f"{sys.platform.rstrip('0123456789')}_{machine}"
