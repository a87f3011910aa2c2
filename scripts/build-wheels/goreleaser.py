""".goreleaser.yml, written from recipe.json, and the check that GoReleaser's
binaries are byte-identical to the ones in the wheels.

    build.py goreleaser [--check]        write (or compare) .goreleaser.yml
    build.py goreleaser-identity WHEEL...  goreleaser build --snapshot, then
                                           compare its files with each wheel's
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Callable

from targets import EXE, LINUX_ARCH, RECIPE, ROOT, BuildError, Target, ldflags, library_cflags

CONFIG = ROOT / ".goreleaser.yml"

#: The GoReleaser release the config is written for (newer ones need a newer Go).
VERSION: str = RECIPE["tools"]["goreleaser"]

# GoReleaser spells the Apple architecture with a template.
_DARWIN_ARCH = '{{ if eq .Arch "amd64" }}x86_64{{ else }}arm64{{ end }}'


def _linux_cc() -> str:
    cross = {goarch: RECIPE["cc"]["linux_cross"].format(arch=arch)
             for goarch, arch in LINUX_ARCH.items()}
    return ("{{ if eq .Arch .Runtime.Goarch }}" + RECIPE["cc"]["linux_native"]
            + '{{ else if eq .Arch "arm64" }}' + cross["arm64"]
            + "{{ else }}" + cross["amd64"] + "{{ end }}")


def _darwin_cc() -> str:
    return " ".join(a.format(arch=_DARWIN_ARCH, macos_min=RECIPE["macos_min"])
                    for a in RECIPE["cc"]["darwin"])


def _list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def render() -> str:
    """The text of .goreleaser.yml for the recipe."""
    go = RECIPE["go"]
    env = go["env"]
    common_env = [f"GOFLAGS={env['GOFLAGS']}"]
    flags = _list(go["flags"])
    goamd64 = _list([env["GOAMD64"]])
    goarm64 = _list([env["GOARM64"]])
    linux_cflags = " ".join(library_cflags("linux", root="{{ .Env.PWD }}"))
    darwin_cflags = " ".join(library_cflags("darwin"))
    lib_pkg = RECIPE["library"]["package"]
    exe_pkg = RECIPE["executable"]["package"]
    return f"""\
# Written by `scripts/build-wheels/build.py goreleaser` from
# scripts/build-wheels/recipe.json, the one native build recipe; edit the
# recipe and rerun it (make lint fails when this file is stale).
#
# GoReleaser {VERSION} (newer releases need a newer Go than the module's).
#
#   goreleaser check
#   goreleaser build --snapshot --clean      # on Linux: every Linux target,
#                                            # plus the pure-Go macOS files
#   goreleaser build --snapshot --clean      # on macOS: also the dylibs
#
# It builds the runtime executable for linux/darwin x amd64/arm64 and the
# shared library: the Linux ones on a Linux host (gcc, aarch64-linux-gnu-gcc,
# glibc 2.17 symbol pins), the macOS ones on a macOS host (Apple clang); each
# library build skips itself elsewhere, since cgo does not cross-compile to
# another OS here. The spawn helper is C, not Go: the before hook builds it
# for every OS/arch the host can (`make helpers`: static gcc for Linux, zig
# or Apple clang for macOS) into build/helpers/OS_ARCH/, with the bash turn
# builtin for Linux, and each archive takes its own from there. Wheels are not GoReleaser's business:
# scripts/build-wheels builds them from the same recipe, so the native files
# come out byte-identical either way (`make goreleaser-identity` checks it;
# `make wheels` runs it). See docs/PACKAGING.md.
# (GoReleaser warns "artifact already present" for libshellport.so: the
# amd64 and arm64 libraries share a name, which matters only when they are
# uploaded loose; here they travel inside the per-platform archives.)
version: 2
project_name: shellport
dist: build/goreleaser

before:
  hooks:
    - make helpers

builds:
  - id: shellport
    main: {exe_pkg}
    binary: shellport
    env:
      - CGO_ENABLED=0
      - {common_env[0]}
    goos: [linux, darwin]
    goarch: [amd64, arm64]
    goamd64: {goamd64}
    goarm64: {goarm64}
    flags: {flags}
    ldflags: ["{ldflags("linux", library=False)}"]
    mod_timestamp: "{{{{ .CommitTimestamp }}}}"

  - id: libshellport-linux
    main: {lib_pkg}
    binary: libshellport
    buildmode: c-shared
    skip: '{{{{ ne .Runtime.Goos "linux" }}}}'
    goos: [linux]
    goarch: [amd64, arm64]
    goamd64: {goamd64}
    goarm64: {goarm64}
    env:
      - CGO_ENABLED=1
      - {common_env[0]}
      - >-
        CC={_linux_cc()}
      # Bind glibc symbols to their 2.17 versions (manylinux2014).
      - CGO_CFLAGS={linux_cflags}
    flags: {flags}
    ldflags: ["{ldflags("linux", library=True)}"]
    mod_timestamp: "{{{{ .CommitTimestamp }}}}"

  - id: libshellport-darwin
    main: {lib_pkg}
    binary: libshellport
    buildmode: c-shared
    skip: '{{{{ ne .Runtime.Goos "darwin" }}}}'
    goos: [darwin]
    goarch: [amd64, arm64]
    goamd64: {goamd64}
    goarm64: {goarm64}
    env:
      - CGO_ENABLED=1
      - {common_env[0]}
      - MACOSX_DEPLOYMENT_TARGET={RECIPE["macos_min"]}
      - >-
        CC={_darwin_cc()}
      - CGO_CFLAGS={darwin_cflags}
    flags: {flags}
    # The default install name is the build path; a fixed one keeps the
    # bytes independent of where the tree is checked out.
    ldflags: ["{ldflags("darwin", library=True)}"]
    mod_timestamp: "{{{{ .CommitTimestamp }}}}"

archives:
  - id: native
    ids: [shellport, libshellport-linux, libshellport-darwin]
    formats: [tar.gz]
    name_template: "{{{{ .ProjectName }}}}_{{{{ .Version }}}}_{{{{ .Os }}}}_{{{{ .Arch }}}}"
    # The shared library is built only for the host's OS, so archives of
    # the other OS hold one binary fewer (the helper is a file, not a build).
    allow_different_binary_count: true
    files:
      - LICENSE
      - capi/libshellport.h
      # Every process the runtime starts goes through it (Linux: the
      # supervisor; macOS: the terminal exec shim).
      - src: "build/helpers/{{{{ .Os }}}}_{{{{ .Arch }}}}/shellport-spawn-helper"
        dst: .
        strip_parent: true
        info:
          mode: 0755
      # The persistent shell's turn builtin, Linux only: a glob, which
      # matches nothing in the macOS archives (a plain name would fail them).
      - src: "build/helpers/{{{{ .Os }}}}_{{{{ .Arch }}}}/shellport-bash-turn*.so"
        dst: .
        strip_parent: true
        info:
          mode: 0644

checksum:
  name_template: checksums.txt
  algorithm: sha256

snapshot:
  version_template: "{{{{ incpatch .Version }}}}-next"

changelog:
  disable: true

# Publishing (PyPI wheels, GitHub releases) is not done from here yet.
release:
  disable: true
"""


def write(check: bool) -> None:
    """Write .goreleaser.yml, or with check raise when the file differs from the recipe."""
    text = render()
    if check:
        current = CONFIG.read_text() if CONFIG.exists() else ""
        if current != text:
            raise BuildError(".goreleaser.yml is not what recipe.json gives: run "
                             "`python3 scripts/build-wheels/build.py goreleaser` (make goreleaser-config)")
        print(".goreleaser.yml matches recipe.json")
        return
    CONFIG.write_text(text)
    print(f"wrote {CONFIG.relative_to(ROOT)}")


def goreleaser_binary() -> str:
    """The goreleaser to run: $GORELEASER (a path, or a name on PATH), else the one on PATH."""
    name = os.environ.get("GORELEASER") or "goreleaser"
    found = str(ROOT / name) if "/" in name and not os.path.isabs(name) else shutil.which(name)
    if not found or not os.path.isfile(found):
        raise BuildError(f"goreleaser is not installed (make goreleaser-identity installs {VERSION} "
                         "into build/tools-bin with go install)")
    return found


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def identity(wheels: list[Path], target_of: Callable[[Path], Target]) -> None:
    """Build with GoReleaser's config (a snapshot, in a scratch copy of dist) and
    compare every executable and library it made with the same file in the wheels."""
    goreleaser = goreleaser_binary()
    with tempfile.TemporaryDirectory(prefix="shellport-goreleaser-") as tmp:
        config = Path(tmp) / "goreleaser.yml"
        # The same config, with its output in the scratch directory and
        # without the before hook (the helper is compared by the wheels' own
        # repro; GoReleaser copies it as a file).
        text = render().replace("dist: build/goreleaser", f"dist: {tmp}/dist")
        text = text.replace("before:\n  hooks:\n    - make helpers\n", "")
        config.write_text(text)
        env = dict(os.environ)
        env.setdefault("PWD", str(ROOT))
        env["PWD"] = str(ROOT)
        proc = subprocess.run([goreleaser, "build", "--snapshot", "--clean", "--config", str(config)],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"goreleaser build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        built = {p: p.read_bytes() for p in (Path(tmp) / "dist").rglob("*")
                 if p.is_file() and p.name in (EXE, "libshellport.so", "libshellport.dylib")}
        compared = 0
        for wheel in wheels:
            t = target_of(wheel)
            with zipfile.ZipFile(wheel) as z:
                for name in z.namelist():
                    base = name.rsplit("/", 1)[-1]
                    if not name.startswith("shellport/_native/") or base not in (
                            EXE, "libshellport.so", "libshellport.dylib"):
                        continue
                    ours = z.read(name)
                    # GoReleaser's directories: ID_GOOS_GOARCH[_VARIANT]
                    build_id = f"libshellport-{t.goos}" if base.startswith("lib") else "shellport"
                    theirs = [p for p in built if p.name == base
                              and p.parent.name.startswith(f"{build_id}_{t.goos}_{t.goarch}")]
                    if not theirs:
                        print(f"note: goreleaser built no {base} for {t.goos}/{t.goarch} here")
                        continue
                    if len(theirs) != 1:
                        raise BuildError(f"goreleaser built {len(theirs)} {base} for "
                                         f"{t.goos}/{t.goarch}: {theirs}")
                    if built[theirs[0]] != ours:
                        raise BuildError(f"{wheel.name}: {base} differs from GoReleaser's "
                                         f"({_sha(ours)[:16]} vs {_sha(built[theirs[0]])[:16]})")
                    compared += 1
                    print(f"identical: {wheel.name} {base} ({_sha(ours)[:16]}…)")
        if compared == 0:
            raise BuildError("no native file of these wheels was compared with GoReleaser's")
