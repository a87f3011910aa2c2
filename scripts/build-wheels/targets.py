"""The wheel targets and the reproducible builds of their native files.

Every flag, pin and version that decides the bytes comes from recipe.json
beside this file, the one native build recipe: ``make native`` builds this
machine's files with it (``targets.py native``), the wheels are built with it,
``.goreleaser.yml`` is written from it (``build.py goreleaser``, checked by
``make lint``), and internal/testkit reads the helper's flags from it.

Every Go file is built with -trimpath, -buildvcs=false and an empty build
id, stripped at link time (-s -w: never strip or re-sign afterwards, that
breaks macOS code signatures), with GOFLAGS, GOAMD64 and GOARM64 fixed so
the environment of the build machine cannot change the bytes. The spawn
helper is C: static with gcc on Linux (so no libc version applies, and one
file serves manylinux and musllinux), with clang on a Mac, and with zig's
clang for Macs on Linux; stripped at link time, from a fixed command line.
The bash turn builtin (Linux only) is a C shared object built by the same
gcc without the C library's start files, for the same reason.

Standard library only, Python 3.9+ (``make native`` runs it; building
wheels needs 3.11 for tomllib, see metadata.py).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
RECIPE_FILE = HERE / "recipe.json"
RECIPE: dict[str, Any] = json.loads(RECIPE_FILE.read_text())

# The macOS release the native files are built for. Go 1.26 itself declares
# macOS 12 in its executables; the dylib and the helper are built for the same.
MACOS_MIN: str = RECIPE["macos_min"]

EXE = "shellport"
HELPER = "shellport-spawn-helper"
BASH_TURN = "shellport-bash-turn.so"  # persistent.TurnLibName: found beside the helper

# Debian packages that provide the Linux C cross compilers.
CROSS_PACKAGES = {
    "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
    "x86_64-linux-gnu-gcc": "gcc-x86-64-linux-gnu libc6-dev-amd64-cross",
}

# The spawn helper's sources and flags (internal/testkit reads the same).
HELPER_SOURCES = sorted((ROOT / RECIPE["helper"]["sources"]).glob("*.c"))
HELPER_CFLAGS: list[str] = RECIPE["helper"]["cflags"]

# The bash turn builtin's, likewise.
BASH_TURN_SOURCES = sorted((ROOT / RECIPE["bash_turn"]["sources"]).glob("*.c"))
BASH_TURN_CFLAGS: list[str] = RECIPE["bash_turn"]["cflags"]

GO_ARCH = {"amd64": "x86_64", "arm64": "arm64"}  # Apple's and the wheel tags' spelling
LINUX_ARCH = {"amd64": "x86_64", "arm64": "aarch64"}  # GNU triplets', zig's, uname's


class BuildError(Exception):
    """A native file could not be built, or came out wrong."""


@dataclass(frozen=True)
class Target:
    name: str  # the name used on the command line
    goos: str
    goarch: str
    arch: str  # the wheel tag's spelling
    platform: str  # wheel platform tag(s); "macosx" ones are completed from the binaries
    library: bool  # ships the shared library

    @property
    def libname(self) -> str:
        return "libshellport.dylib" if self.goos == "darwin" else "libshellport.so"

    @property
    def manylinux(self) -> bool:
        return self.platform.startswith("manylinux")


TARGETS = {
    t.name: t
    for t in [
        Target("manylinux-x86_64", "linux", "amd64", "x86_64",
               "manylinux_2_17_x86_64.manylinux2014_x86_64", library=True),
        Target("manylinux-aarch64", "linux", "arm64", "aarch64",
               "manylinux_2_17_aarch64.manylinux2014_aarch64", library=True),
        # musl cannot load a Go shared library (golang/go#54805): the static
        # executable alone serves the process transport there.
        Target("musllinux-x86_64", "linux", "amd64", "x86_64",
               "musllinux_1_1_x86_64", library=False),
        Target("musllinux-aarch64", "linux", "arm64", "aarch64",
               "musllinux_1_1_aarch64", library=False),
        # The dylib is added only where a macOS toolchain exists (see
        # library_toolchain); without it the wheel works through the executable.
        Target("macos-x86_64", "darwin", "amd64", "x86_64", "macosx", library=True),
        Target("macos-arm64", "darwin", "arm64", "arm64", "macosx", library=True),
    ]
}


def host_goarch() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(
        machine, machine)


def linux_cc(goarch: str) -> str:
    """The C compiler for Linux/goarch on this (Linux) host: gcc, or the GNU cross gcc."""
    if goarch == host_goarch():
        return RECIPE["cc"]["linux_native"]
    return RECIPE["cc"]["linux_cross"].format(arch=LINUX_ARCH[goarch])


def darwin_cc(goarch: str) -> list[str]:
    """Apple clang's argv for darwin/goarch."""
    return [a.format(arch=GO_ARCH[goarch], macos_min=MACOS_MIN) for a in RECIPE["cc"]["darwin"]]


def zig_cc(zig: list[str], goarch: str) -> list[str]:
    """zig's clang for darwin/goarch (the helper's macOS build on Linux)."""
    return [*zig, *(a.format(zig_arch=LINUX_ARCH[goarch], macos_min=MACOS_MIN)
                    for a in RECIPE["cc"]["darwin_zig"])]


def library_toolchain(t: Target) -> tuple[list[str] | None, str]:
    """Return (CC argv, "") for building t's shared library here, or (None, why not)."""
    host = sys.platform
    if t.goos == "linux":
        if host != "linux":
            return None, "Linux libraries are built on Linux"
        cc = linux_cc(t.goarch)
        if shutil.which(cc) is None:
            pkgs = CROSS_PACKAGES.get(cc, "a C compiler")
            return None, f"{cc} is not installed (apt-get install {pkgs})"
        return [cc], ""
    if t.goos == "darwin":
        if host != "darwin" or shutil.which("clang") is None:
            return None, "the dylib needs a macOS C toolchain (built on a macOS runner)"
        return darwin_cc(t.goarch), ""
    return None, f"no shared library for {t.goos}"


def helper_toolchain(t: Target) -> tuple[list[str] | None, str]:
    """Return (C compiler argv with target flags, "") for the helper of t, or (None, why not)."""
    host = sys.platform
    if t.goos == "linux":
        if host != "linux":
            return None, "the Linux helper is built on Linux (static, with gcc)"
        cc = linux_cc(t.goarch)
        if shutil.which(cc) is None:
            return None, f"{cc} is not installed (apt-get install {CROSS_PACKAGES.get(cc, 'gcc')})"
        return [cc, *RECIPE["helper"]["linux_ldflags"]], ""
    if host == "darwin" and shutil.which("clang") is not None:
        return darwin_cc(t.goarch), ""
    zig = os.environ.get("ZIG", "").split()
    if zig:
        return zig_cc(zig, t.goarch), ""
    return None, ("the macOS helper needs clang on a Mac, or zig elsewhere "
                  "(make wheel-tools installs it; ZIG='python -m ziglang' names it)")


def build_helper(t: Target, out: Path) -> None:
    """Compile the spawn helper for t into out (whose name is part of a Mach-O signature)."""
    cc, why = helper_toolchain(t)
    if cc is None:
        raise BuildError(f"{t.name}: cannot build {HELPER}: {why}")
    compile_c(t, HELPER, cc, [*HELPER_CFLAGS, *RECIPE["helper"]["release_ldflags"]], HELPER_SOURCES, out)


def build_bash_turn(t: Target, out: Path) -> None:
    """Compile the bash turn builtin for t (Linux only) into out.

    A shared object with no C library of its own (-nostdlib): what it calls
    of the C library resolves in the bash that loads it, so one file serves
    glibc and musl, as the static helper does.
    """
    if t.goos != "linux":
        raise BuildError(f"{t.name}: {BASH_TURN} is built for Linux only")
    if sys.platform != "linux":
        raise BuildError(f"{t.name}: {BASH_TURN} is built on Linux (with gcc)")
    cc = linux_cc(t.goarch)
    if shutil.which(cc) is None:
        raise BuildError(f"{t.name}: cannot build {BASH_TURN}: {cc} is not installed "
                         f"(apt-get install {CROSS_PACKAGES.get(cc, 'gcc')})")
    compile_c(t, BASH_TURN, [cc], [*BASH_TURN_CFLAGS, *RECIPE["bash_turn"]["release_ldflags"]],
              BASH_TURN_SOURCES, out)


def compile_c(t: Target, what: str, cc: list[str], flags: list[str], sources: list[Path], out: Path) -> None:
    """Compile sources with cc and flags into out, from a fixed command line in the
    environment the recipe leaves (the helper's cleared variables); what names the file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in RECIPE["helper"]["cleared_env"]}
    argv = [*cc, *flags, "-o", str(out), *map(str, sources)]
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"building {what} for {t.name} failed ({' '.join(cc)}):\n{proc.stderr.strip()}")


def go_env(goos: str, goarch: str, cgo: bool) -> dict[str, str]:
    """The environment of every go build: the caller's, less what could change the bytes."""
    env = dict(os.environ)
    for var in RECIPE["go"]["cleared_env"]:
        env.pop(var, None)
    env.update(RECIPE["go"]["env"])
    env.update(GOOS=goos, GOARCH=goarch, CGO_ENABLED="1" if cgo else "0")
    return env


def ldflags(goos: str, library: bool) -> str:
    """The -ldflags value (without the flag)."""
    flags = RECIPE["go"]["ldflags"]
    if library and goos == "darwin":
        # The default install name is the build path, which would make the
        # bytes depend on where the tree is checked out.
        flags += " -extldflags=" + RECIPE["library"]["darwin_extldflags"]
    return flags


def library_cflags(goos: str, root: str | Path = ROOT) -> list[str]:
    """CGO_CFLAGS of the shared library; root is where the pin header is found."""
    cflags = list(RECIPE["library"]["cflags"])
    if goos == "linux":
        # Bind glibc symbols to their manylinux2014 versions (see glibc217.h).
        cflags += ["-include", f"{root}/{RECIPE['library']['linux_include']}"]
    return cflags


def _run_go(args: list[str], env: dict[str, str], what: str) -> None:
    proc = subprocess.run(["go", "build", *RECIPE["go"]["flags"], *args],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"go build of {what} failed:\n{proc.stderr.strip()}")


def build_executable(goos: str, goarch: str, pkg: str, out: Path) -> None:
    """Build a pure-Go executable (CGO_ENABLED=0)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    _run_go([f"-ldflags={ldflags(goos, library=False)}", "-o", str(out), pkg],
            go_env(goos, goarch, cgo=False), f"{pkg} for {goos}/{goarch}")


def build_library(t: Target, cc: list[str], out: Path, header: Path | None = None) -> None:
    """Build the c-shared library for t with the C compiler cc.

    cgo writes a C header beside it: moved to header if given, else removed
    (the checked-in capi/libshellport.h is the published one).
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    env = go_env(t.goos, t.goarch, cgo=True)
    env["CC"] = " ".join(cc)
    env["CGO_CFLAGS"] = " ".join(library_cflags(t.goos))
    if t.goos == "darwin":
        env["MACOSX_DEPLOYMENT_TARGET"] = MACOS_MIN
    _run_go(["-buildmode=c-shared", f"-ldflags={ldflags(t.goos, library=True)}", "-o", str(out),
             RECIPE["library"]["package"]], env, f"the shared library for {t.goos}/{t.goarch}")
    generated = out.with_suffix(".h")
    if generated.exists():
        if header is not None:
            header.parent.mkdir(parents=True, exist_ok=True)
            generated.replace(header)
        else:
            generated.unlink()


def build_natives(t: Target, stage: Path, *, with_library: bool) -> dict[str, Path]:
    """Build (or reuse from stage) the native files of t; return name -> path."""
    d = stage / f"{t.goos}_{t.goarch}"
    files: dict[str, Path] = {}
    exe = d / EXE
    if not exe.exists():
        build_executable(t.goos, t.goarch, RECIPE["executable"]["package"], exe)
    files[EXE] = exe
    helper = d / HELPER
    if not helper.exists():
        build_helper(t, helper)
    files[HELPER] = helper
    if t.goos == "linux":
        turn = d / BASH_TURN
        if not turn.exists():
            build_bash_turn(t, turn)
        files[BASH_TURN] = turn
    if t.library and with_library:
        lib = d / t.libname
        if not lib.exists():
            cc, why = library_toolchain(t)
            if cc is None:
                raise BuildError(f"{t.name}: cannot build {t.libname}: {why}")
            build_library(t, cc, lib)
        files[t.libname] = lib
    return files


def host_target() -> Target:
    """The target of this machine (the wheel pip would pick here)."""
    machine = platform.machine().lower()
    if sys.platform == "darwin":
        return TARGETS["macos-arm64" if machine == "arm64" else "macos-x86_64"]
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    libc = "manylinux" if platform.libc_ver()[0] == "glibc" else "musllinux"
    name = f"{libc}-{arch}"
    if name not in TARGETS:
        raise BuildError(f"shellport has no target for this machine ({name})")
    return TARGETS[name]


def build_host(out: Path, what: str, header: Path | None = None) -> Path:
    """Build one native file of this machine into out/ (make native): "library",
    "executable", "helper" or "bash-turn" (Linux); return its path."""
    t = host_target()
    if what == "executable":
        path = out / EXE
        build_executable(t.goos, t.goarch, RECIPE["executable"]["package"], path)
    elif what == "helper":
        path = out / HELPER
        build_helper(t, path)
    elif what == "bash-turn":
        path = out / BASH_TURN
        build_bash_turn(t, path)
    elif what == "library":
        if not t.library:
            raise BuildError(f"{t.name} has no shared library (golang/go#54805)")
        cc, why = library_toolchain(t)
        if cc is None:
            raise BuildError(f"{t.name}: cannot build {t.libname}: {why}")
        path = out / t.libname
        build_library(t, cc, path, header=header)
    else:
        raise BuildError(f"unknown native file {what!r}: library, executable, helper or bash-turn")
    return path


def main(argv: list[str]) -> int:
    """targets.py native {library,executable,helper,bash-turn} --out DIR [--header FILE] (make native)."""
    import argparse

    p = argparse.ArgumentParser(description="build one native file of this machine with the recipe")
    p.add_argument("cmd", choices=["native"])
    p.add_argument("what", choices=["library", "executable", "helper", "bash-turn"])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--header", type=Path, default=None,
                   help="where to put the C header cgo generates (library only)")
    args = p.parse_args(argv)
    try:
        build_host(args.out, args.what, header=args.header)
    except BuildError as exc:
        print(f"build-wheels: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    sys.exit(main(sys.argv[1:]))
