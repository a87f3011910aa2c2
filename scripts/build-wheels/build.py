#!/usr/bin/env python3
"""Build shellport's per-platform wheels, check them, and smoke-test them.

    build.py build [--targets all|native|NAME,...] [--out DIR] [--stage DIR]
    build.py check WHEEL...            structure, tags, binaries, auditwheel
    build.py repro WHEEL...            rebuild in a scratch stage, compare bytes
    build.py smoke WHEEL               offline install in a fresh venv, then run
    build.py smoke-qemu WHEEL          aarch64 executable and library under qemu
    build.py native-wheel DIR          print the wheel in DIR for this machine
    build.py smoke-dist DIR            smoke-test every wheel in DIR this machine
                                       can run (its own natively, manylinux
                                       aarch64 under qemu on Linux x86_64)
    build.py helpers [--out DIR]       the spawn helper (and on Linux the turn
                                       builtin) for every OS/arch this machine
                                       can build (GoReleaser's hook)
    build.py goreleaser [--check]      write .goreleaser.yml from recipe.json
                                       (--check: fail when it is stale)
    build.py goreleaser-identity WHEEL...
                                       GoReleaser's snapshot build, compared
                                       byte for byte with the wheels' files
    build.py vet-darwin                go vet ./... for darwin/amd64 and
                                       darwin/arm64, cgo through zig's clang

Targets: manylinux-x86_64, manylinux-aarch64, musllinux-x86_64,
musllinux-aarch64, macos-x86_64, macos-arm64. "all" is every target, and
fails when a toolchain is missing; "available" is every target this machine
can build (a macOS wheel without a macOS toolchain has no dylib, which is
allowed); "native" is this machine's own platform only. See README.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import check as checks  # noqa: E402
import goreleaser  # noqa: E402
import metadata  # noqa: E402
import smoke  # noqa: E402
from binfmt import read_macho  # noqa: E402
from targets import (  # noqa: E402
    BASH_TURN,
    EXE,
    HELPER,
    ROOT,
    TARGETS,
    BuildError,
    Target,
    build_bash_turn,
    build_helper,
    build_natives,
    go_env,
    helper_toolchain,
    host_target,
    library_toolchain,
    zig_cc,
)
from wheelfile import Entry, write_wheel  # noqa: E402


def native_target() -> str:
    return host_target().name


def select(spec: str) -> list[tuple[Target, bool]]:
    """Return (target, with_library) pairs for a --targets value."""
    if spec == "native":
        names = [native_target()]
    elif spec in ("all", "available"):
        names = list(TARGETS)
    else:
        names = [n.strip() for n in spec.split(",") if n.strip()]
    chosen = []
    for name in names:
        t = TARGETS.get(name)
        if t is None:
            raise BuildError(f"unknown target {name!r}; known: {', '.join(TARGETS)}")
        with_library = t.library
        if t.library:
            cc, why = library_toolchain(t)
            if cc is None:
                if t.goos == "darwin":
                    print(f"note: {t.name}: no {t.libname} ({why}); the wheel works through the executable")
                    with_library = False
                elif spec == "available":
                    print(f"note: skipping {t.name}: {why}")
                    continue
                else:
                    raise BuildError(f"{t.name}: {why}")
        chosen.append((t, with_library))
    return chosen


def platform_tags(t: Target, natives: dict[str, Path]) -> list[str]:
    """The wheel's platform tags; macOS ones carry the newest minimum the binaries declare."""
    if t.platform != "macosx":
        return t.platform.split(".")
    newest = (0, 0, 0)
    for path in natives.values():
        info = read_macho(path.read_bytes())
        if info.cpu != t.arch:
            raise BuildError(f"{path} is built for {info.cpu}, not {t.arch}")
        newest = max(newest, info.minos)
    major, minor, _ = newest
    if major >= 11 and minor != 0:
        # pip matches macOS 11+ by major version only: no tag can say 12.3.
        raise BuildError(f"{t.name}: the binaries declare macOS {major}.{minor}, which no wheel "
                         f"tag can name; build them for {major}.0")
    return [f"macosx_{major}_{minor}_{t.arch}"]


def require_helper(t: Target, natives: dict[str, Path]) -> None:
    """A wheel without a runnable helper must never be produced: on Linux no
    command runs without it, and on macOS no persistent shell starts."""
    helper = natives.get(HELPER)
    if helper is None or not helper.is_file():
        raise BuildError(f"{t.name}: {HELPER} is missing; refusing to build the wheel")
    if not helper.stat().st_mode & 0o111:
        raise BuildError(f"{t.name}: {helper} is not executable; refusing to build the wheel")


def assemble(t: Target, natives: dict[str, Path], out: Path, project: dict, epoch: int) -> Path:
    require_helper(t, natives)
    tags = platform_tags(t, natives)
    name, version = metadata.normalized_name(project["name"]), project["version"]
    dist_info = f"{name}-{version}.dist-info"
    entries = metadata.package_entries()
    for fname, path in sorted(natives.items()):
        entries.append(Entry(f"shellport/_native/{fname}", path.read_bytes(),
                             executable=fname in (EXE, HELPER)))
    entries += metadata.dist_info_entries(project, dist_info, [f"py3-none-{p}" for p in tags],
                                          t.goos, t.goarch)
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{name}-{version}-py3-none-{'.'.join(tags)}.whl"
    write_wheel(str(wheel), entries, dist_info, epoch)
    return wheel


def build(spec: str, out: Path, stage: Path) -> list[Path]:
    project = metadata.load_pyproject()["project"]
    metadata.check_versions(project)
    epoch = metadata.source_date_epoch()
    wheels = []
    for t, with_library in select(spec):
        started = time.monotonic()
        natives = build_natives(t, stage, with_library=with_library)
        wheel = assemble(t, natives, out, project, epoch)
        size = wheel.stat().st_size / 1e6
        print(f"built {wheel.relative_to(ROOT) if wheel.is_relative_to(ROOT) else wheel} "
              f"({size:.1f} MB, {time.monotonic() - started:.1f}s)")
        wheels.append(wheel)
    return wheels


def repro(wheels: list[Path]) -> None:
    """Rebuild each wheel from scratch (fresh stage, fresh out) and compare bytes.

    The rebuild uses the timestamp the wheel carries unless SOURCE_DATE_EPOCH
    is set, so a commit made in between does not count as a difference.
    """
    project = metadata.load_pyproject()["project"]
    with tempfile.TemporaryDirectory(prefix="shellport-repro-") as tmp:
        for wheel in wheels:
            t = checks.target_of(wheel)
            natives_lib = any(n.endswith((".so", ".dylib")) for n in checks.native_names(wheel))
            epoch = checks.wheel_epoch(wheel)
            if os.environ.get("SOURCE_DATE_EPOCH"):
                epoch = metadata.source_date_epoch()
            natives = build_natives(t, Path(tmp) / "stage", with_library=natives_lib)
            again = assemble(t, natives, Path(tmp) / "out", project, epoch)
            if again.read_bytes() != wheel.read_bytes():
                raise BuildError(f"{wheel.name}: a second build differs ({checks.diff(wheel, again)})")
            print(f"reproducible: {wheel.name} ({checks.sha256(wheel)[:16]}…)")


def helpers(out: Path) -> None:
    """Build the helper (and on Linux the bash turn builtin) once per OS/arch into out/OS_ARCH/,
    skipping what this machine cannot build."""
    done = set()
    for t in TARGETS.values():
        key = f"{t.goos}_{t.goarch}"
        if key in done:
            continue
        done.add(key)
        cc, why = helper_toolchain(t)
        if cc is None:
            print(f"note: no {HELPER} for {key}: {why}")
            continue
        build_helper(t, out / key / HELPER)
        print(f"built {out / key / HELPER}")
        if t.goos == "linux":
            build_bash_turn(t, out / key / BASH_TURN)
            print(f"built {out / key / BASH_TURN}")


def smoke_plan(wheels: list[Path]) -> list[tuple[Path, str]]:
    """What smoke-dist does with each wheel: "smoke", "smoke-qemu", or why not."""
    native = host_target()
    plan = []
    for wheel in sorted(wheels):
        t = checks.target_of(wheel)
        if t == native:
            plan.append((wheel, "smoke"))
        elif t.name == "manylinux-aarch64" and native.name == "manylinux-x86_64":
            plan.append((wheel, "smoke-qemu"))
        else:
            plan.append((wheel, f"not smoke-tested here: {t.name} does not run on {native.name}"))
    return plan


def smoke_dist(out: Path) -> None:
    """Smoke-test what this machine can run of the wheels in out, and say what it could not."""
    plan = smoke_plan(list(out.glob("*.whl")))
    if not plan:
        raise BuildError(f"no wheels in {out}")
    for wheel, action in plan:
        if action == "smoke":
            smoke.smoke_venv(wheel)
        elif action == "smoke-qemu":
            smoke.smoke_qemu(wheel)
        else:
            print(f"note: {wheel.name}: {action}")


def vet_darwin() -> None:
    """go vet every package as macOS builds it, so a macOS-only break shows on Linux.

    cgo packages (the library, the terminal code) are compiled for macOS by
    zig's clang; linking a dylib needs Apple's SDK, so that is left to the
    macOS runners.
    """
    zig = os.environ.get("ZIG", "").split()
    if not zig:
        raise BuildError("vet-darwin needs zig (ZIG='python -m ziglang'; make wheel-tools)")
    for goarch in ("amd64", "arm64"):
        env = go_env("darwin", goarch, cgo=True)
        env["CC"] = " ".join(zig_cc(zig, goarch))
        started = time.monotonic()
        proc = subprocess.run(["go", "vet", "./..."], cwd=ROOT, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"go vet for darwin/{goarch} failed:\n{proc.stderr.strip()}")
        print(f"go vet ./... for darwin/{goarch} (cgo by zig cc): ok ({time.monotonic() - started:.0f}s)")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--targets", default="available")
    b.add_argument("--out", type=Path, default=ROOT / "dist")
    b.add_argument("--stage", type=Path, default=None)
    c = sub.add_parser("check")
    c.add_argument("wheels", nargs="+", type=Path)
    c.add_argument("--require-auditwheel", action="store_true")
    r = sub.add_parser("repro")
    r.add_argument("wheels", nargs="+", type=Path)
    s = sub.add_parser("smoke")
    s.add_argument("wheel", type=Path)
    q = sub.add_parser("smoke-qemu")
    q.add_argument("wheel", type=Path)
    n = sub.add_parser("native-wheel", help="print the wheel in DIR that this machine can run")
    n.add_argument("dir", type=Path)
    h = sub.add_parser("helpers", help="build the spawn helper for every OS/arch this machine can")
    h.add_argument("--out", type=Path, default=ROOT / "build" / "helpers")
    g = sub.add_parser("goreleaser", help="write .goreleaser.yml from recipe.json")
    g.add_argument("--check", action="store_true", help="fail if the file is stale, write nothing")
    gi = sub.add_parser("goreleaser-identity", help="compare GoReleaser's binaries with the wheels'")
    gi.add_argument("wheels", nargs="+", type=Path)
    sub.add_parser("vet-darwin", help="go vet ./... for both Mac architectures")
    sd = sub.add_parser("smoke-dist", help="smoke-test every wheel in DIR this machine can run")
    sd.add_argument("dir", type=Path)
    args = p.parse_args(argv)
    try:
        if args.cmd == "build":
            if args.stage is None:
                with tempfile.TemporaryDirectory(prefix="shellport-stage-") as tmp:
                    build(args.targets, args.out, Path(tmp))
            else:
                build(args.targets, args.out, args.stage)
        elif args.cmd == "check":
            for wheel in args.wheels:
                checks.check(wheel, require_auditwheel=args.require_auditwheel)
        elif args.cmd == "repro":
            repro(args.wheels)
        elif args.cmd == "smoke":
            smoke.smoke_venv(args.wheel)
        elif args.cmd == "smoke-qemu":
            smoke.smoke_qemu(args.wheel)
        elif args.cmd == "helpers":
            helpers(args.out)
        elif args.cmd == "goreleaser":
            goreleaser.write(args.check)
        elif args.cmd == "goreleaser-identity":
            goreleaser.identity(args.wheels, checks.target_of)
        elif args.cmd == "vet-darwin":
            vet_darwin()
        elif args.cmd == "smoke-dist":
            smoke_dist(args.dir)
        elif args.cmd == "native-wheel":
            want = TARGETS[native_target()]
            found = [w for w in sorted(args.dir.glob("*.whl")) if checks.target_of(w) == want]
            if len(found) != 1:
                raise BuildError(f"want one {want.name} wheel in {args.dir}, found {len(found)}")
            print(found[0])
    except (BuildError, checks.CheckError, smoke.SmokeError) as exc:
        print(f"build-wheels: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
