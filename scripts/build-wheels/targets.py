"""The wheel targets and the reproducible builds of their native files.

Every Go file is built with -trimpath, -buildvcs=false and an empty build
id, stripped at link time (-s -w: never strip or re-sign afterwards, that
breaks macOS code signatures), with GOFLAGS, GOAMD64 and GOARM64 fixed so
the environment of the build machine cannot change the bytes. The spawn
helper is C: static with gcc on Linux (so no libc version applies, and one
file serves manylinux and musllinux), with clang on a Mac, and with zig's
clang for Macs on Linux; stripped at link time, from a fixed command line.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PIN_HEADER = HERE / "glibc217.h"

# The macOS release the native files are built for. Go 1.26 itself declares
# macOS 12 in its executables; the dylib is compiled for the same release.
MACOS_MIN = "12.0"

EXE = "shellport"
HELPER = "shellport-spawn-helper"

# Debian packages that provide the Linux C cross compilers.
CROSS_PACKAGES = {
    "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
    "x86_64-linux-gnu-gcc": "gcc-x86-64-linux-gnu libc6-dev-amd64-cross",
}

# The spawn helper's sources and flags; the Makefile and internal/testkit use
# the same flags.
HELPER_SOURCES = sorted((ROOT / "cmd" / "shellport-spawn-helper").glob("*.c"))
HELPER_CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"]


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


def library_toolchain(t: Target) -> tuple[list[str] | None, str]:
    """Return (CC argv, "") for building t's shared library here, or (None, why not)."""
    host = sys.platform
    if t.goos == "linux":
        if host != "linux":
            return None, "Linux libraries are built on Linux"
        native = {"amd64": "x86_64", "arm64": "aarch64"}[t.goarch] == platform.machine()
        cc = "gcc" if native else f"{t.arch}-linux-gnu-gcc"
        if shutil.which(cc) is None:
            pkgs = CROSS_PACKAGES.get(cc, "a C compiler")
            return None, f"{cc} is not installed (apt-get install {pkgs})"
        return [cc], ""
    if t.goos == "darwin":
        if host != "darwin" or shutil.which("clang") is None:
            return None, "the dylib needs a macOS C toolchain (built on a macOS runner)"
        arch = {"amd64": "x86_64", "arm64": "arm64"}[t.goarch]
        return ["clang", "-arch", arch, f"-mmacosx-version-min={MACOS_MIN}"], ""
    return None, f"no shared library for {t.goos}"


def helper_toolchain(t: Target) -> tuple[list[str] | None, str]:
    """Return (C compiler argv with target flags, "") for the helper of t, or (None, why not)."""
    host = sys.platform
    if t.goos == "linux":
        if host != "linux":
            return None, "the Linux helper is built on Linux (static, with gcc)"
        native = {"amd64": "x86_64", "arm64": "aarch64"}[t.goarch] == platform.machine()
        cc = "gcc" if native else f"{t.arch}-linux-gnu-gcc"
        if shutil.which(cc) is None:
            return None, f"{cc} is not installed (apt-get install {CROSS_PACKAGES.get(cc, 'gcc')})"
        return [cc, "-static"], ""
    arch = {"amd64": "x86_64", "arm64": "arm64"}[t.goarch]
    if host == "darwin" and shutil.which("clang") is not None:
        return ["clang", "-arch", arch, f"-mmacosx-version-min={MACOS_MIN}"], ""
    zig = os.environ.get("ZIG", "").split()
    if zig:
        zarch = {"amd64": "x86_64", "arm64": "aarch64"}[t.goarch]
        return [*zig, "cc", "-target", f"{zarch}-macos.{MACOS_MIN}"], ""
    return None, ("the macOS helper needs clang on a Mac, or zig elsewhere "
                  "(make wheel-tools installs it; ZIG='python -m ziglang' names it)")


def build_helper(t: Target, out: Path) -> None:
    """Compile the spawn helper for t into out (whose name is part of a Mach-O signature)."""
    cc, why = helper_toolchain(t)
    if cc is None:
        raise BuildError(f"{t.name}: cannot build {HELPER}: {why}")
    out.parent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CFLAGS", "LDFLAGS", "CPATH", "LIBRARY_PATH")}
    proc = subprocess.run([*cc, *HELPER_CFLAGS, "-s", "-o", str(out), *map(str, HELPER_SOURCES)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"building {HELPER} for {t.name} failed ({' '.join(cc)}):\n{proc.stderr.strip()}")


def _go_env(goos: str, goarch: str, cgo: bool) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_LDFLAGS", "GOFLAGS", "GOEXPERIMENT"):
        env.pop(var, None)
    env.update(
        GOOS=goos,
        GOARCH=goarch,
        CGO_ENABLED="1" if cgo else "0",
        GOFLAGS="-mod=readonly",
        GOAMD64="v1",
        GOARM64="v8.0",
    )
    return env


def _ldflags(extra: str = "") -> str:
    return "-ldflags=-s -w -buildid=" + (f" {extra}" if extra else "")


def _run_go(args: list[str], env: dict[str, str], what: str) -> None:
    proc = subprocess.run(["go", "build", "-trimpath", "-buildvcs=false", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"go build of {what} failed:\n{proc.stderr.strip()}")


def build_executable(goos: str, goarch: str, pkg: str, out: Path) -> None:
    """Build a pure-Go executable (CGO_ENABLED=0)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    _run_go([_ldflags(), "-o", str(out), pkg], _go_env(goos, goarch, cgo=False),
            f"{pkg} for {goos}/{goarch}")


def build_library(t: Target, cc: list[str], out: Path) -> None:
    """Build the c-shared library for t with the C compiler cc."""
    out.parent.mkdir(parents=True, exist_ok=True)
    env = _go_env(t.goos, t.goarch, cgo=True)
    env["CC"] = " ".join(cc)
    cflags = ["-O2", "-g0"]
    extld = ""
    if t.goos == "linux":
        # Bind glibc symbols to their manylinux2014 versions (see glibc217.h).
        cflags += ["-include", str(PIN_HEADER)]
    else:
        env["MACOSX_DEPLOYMENT_TARGET"] = MACOS_MIN
        # The default install name is the build path, which would make the
        # bytes depend on where the tree is checked out.
        extld = "-extldflags=-Wl,-install_name,@rpath/libshellport.dylib"
    env["CGO_CFLAGS"] = " ".join(cflags)
    _run_go(["-buildmode=c-shared", _ldflags(extld), "-o", str(out), "./capi"], env,
            f"the shared library for {t.goos}/{t.goarch}")
    header = out.with_suffix(".h")
    if header.exists():
        header.unlink()  # the checked-in capi/libshellport.h is the published one


def build_natives(t: Target, stage: Path, *, with_library: bool) -> dict[str, Path]:
    """Build (or reuse from stage) the native files of t; return name -> path."""
    d = stage / f"{t.goos}_{t.goarch}"
    files: dict[str, Path] = {}
    exe = d / EXE
    if not exe.exists():
        build_executable(t.goos, t.goarch, "./cmd/shellport", exe)
    files[EXE] = exe
    helper = d / HELPER
    if not helper.exists():
        build_helper(t, helper)
    files[HELPER] = helper
    if t.library and with_library:
        lib = d / t.libname
        if not lib.exists():
            cc, why = library_toolchain(t)
            if cc is None:
                raise BuildError(f"{t.name}: cannot build {t.libname}: {why}")
            build_library(t, cc, lib)
        files[t.libname] = lib
    return files
