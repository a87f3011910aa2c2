"""Tests of the wheel builder that need no Go build (issues 6 and 10): the
spawn-helper gate of every wheel, zip entry modes, RECORD, the Mach-O
reader, the static-helper check and the tag rule.

    python -m pytest -q scripts/build-wheels
"""

from __future__ import annotations

import stat
import struct
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.dont_write_bytecode = True

import check  # noqa: E402
from binfmt import FormatError, read_macho  # noqa: E402
from targets import BASH_TURN, EXE, HELPER, TARGETS, BuildError  # noqa: E402
from wheelfile import Entry, write_wheel  # noqa: E402

import build  # noqa: E402


def macho(cpu: int, minos: tuple[int, int, int]) -> bytes:
    """A minimal thin Mach-O: header plus one LC_BUILD_VERSION."""
    version = (minos[0] << 16) | (minos[1] << 8) | minos[2]
    cmd = struct.pack("<IIIIII", 0x32, 24, 1, version, version, 0)
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, cpu, 0, 2, 1, len(cmd), 0, 0)
    return header + cmd


ARM64, X86_64 = 0x0100000C, 0x01000007


def natives(tmp_path: Path, *, helper_mode: int | None = 0o755, minos=(12, 0, 0)) -> dict[str, Path]:
    files = {EXE: tmp_path / EXE}
    files[EXE].write_bytes(macho(ARM64, minos))
    files[EXE].chmod(0o755)
    if helper_mode is not None:
        files[HELPER] = tmp_path / HELPER
        files[HELPER].write_bytes(macho(ARM64, minos))
        files[HELPER].chmod(helper_mode)
    return files


def assemble(tmp_path: Path, files: dict[str, Path]) -> Path:
    project = build.metadata.load_pyproject()["project"]
    return build.assemble(TARGETS["macos-arm64"], files, tmp_path / "out", project, 1_700_000_000)


def test_macos_wheel_refused_without_helper(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="shellport-spawn-helper is missing"):
        assemble(tmp_path, natives(tmp_path, helper_mode=None))
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_macos_wheel_refused_with_unexecutable_helper(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="is not executable"):
        assemble(tmp_path, natives(tmp_path, helper_mode=0o644))
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_macos_wheel_layout_modes_and_tag(tmp_path: Path) -> None:
    wheel = assemble(tmp_path, natives(tmp_path))
    assert wheel.name.endswith("-py3-none-macosx_12_0_arm64.whl")
    with zipfile.ZipFile(wheel) as zf:
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
    for name in (f"shellport/_native/{EXE}", f"shellport/_native/{HELPER}"):
        assert stat.S_ISREG(modes[name]) and stat.S_IMODE(modes[name]) == 0o755
    assert stat.S_IMODE(modes["shellport/__init__.py"]) == 0o644
    check.check(wheel)  # the full structural check passes


def test_tag_follows_the_binaries_minimum(tmp_path: Path) -> None:
    wheel = assemble(tmp_path, natives(tmp_path, minos=(13, 0, 0)))
    assert wheel.name.endswith("-py3-none-macosx_13_0_arm64.whl")
    with pytest.raises(BuildError, match=r"declare macOS 12\.3"):
        assemble(tmp_path, natives(tmp_path, minos=(12, 3, 0)))


def test_wrong_architecture_is_refused(tmp_path: Path) -> None:
    files = natives(tmp_path)
    files[HELPER].write_bytes(macho(X86_64, (12, 0, 0)))
    with pytest.raises(BuildError, match="built for x86_64, not arm64"):
        assemble(tmp_path, files)


def test_check_catches_a_mode_without_the_file_type(tmp_path: Path) -> None:
    """pip restores the execute bit only when S_IFREG is set (issue 6)."""
    wheel = assemble(tmp_path, natives(tmp_path))
    bad = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith(f"/{HELPER}"):
                info.external_attr = 0o755 << 16
            dst.writestr(info, data)
    with pytest.raises(check.CheckError, match=r"shellport-spawn-helper: mode 755"):
        check.check(bad)


def test_check_catches_a_wrong_record(tmp_path: Path) -> None:
    wheel = tmp_path / "shellport-0.1.0-py3-none-musllinux_1_1_x86_64.whl"
    entries = [Entry("shellport/__init__.py", b"x = 1\n"), Entry("shellport-0.1.0.dist-info/WHEEL", b"")]
    write_wheel(str(wheel), entries, "shellport-0.1.0.dist-info", 0)
    with zipfile.ZipFile(wheel, "a") as zf:
        zf.writestr("shellport/extra.py", b"")
    with pytest.raises(check.CheckError, match="RECORD lists"):
        check.check(wheel)


def test_same_inputs_same_bytes(tmp_path: Path) -> None:
    a = assemble(tmp_path / "a", natives(tmp_path))
    b = assemble(tmp_path / "b", natives(tmp_path))
    assert a.read_bytes() == b.read_bytes()


def test_macho_reader_rejects_other_files() -> None:
    with pytest.raises(FormatError):
        read_macho(b"\x7fELF" + b"\0" * 60)
    assert read_macho(macho(X86_64, (12, 0, 0))).cpu == "x86_64"


def test_wheel_carries_every_entry_point_group(tmp_path: Path) -> None:
    """Issue 14: inspect_ai finds the "shellport" sandbox through an entry point
    of the wheel, next to the console script."""
    wheel = assemble(tmp_path, natives(tmp_path))
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt"))
        text = z.read(name).decode()
        metadata = z.read(name.replace("entry_points.txt", "METADATA")).decode()
    assert "[console_scripts]\nshellport = shellport._cli:main\n" in text
    assert "[inspect_ai]\nshellport = shellport.integrations.inspect_ai\n" in text
    assert "Provides-Extra: inspect-ai" in metadata
    assert "shellport/integrations/inspect_ai.py" in zipfile.ZipFile(wheel).namelist()


def elf(dynamic: bool) -> bytes:
    """A minimal x86_64 ELF file: with an interpreter (dynamic) or without (static)."""
    interp = b"/lib64/ld-linux-x86-64.so.2\0"
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 64 if dynamic else 0, 0, 0, 64, 56,
                          1 if dynamic else 0, 64, 0, 0)
    if not dynamic:
        return header
    return header + struct.pack("<IIQQQQQQ", 3, 4, 120, 0, 0, len(interp), len(interp), 1) + interp


def linux_natives(tmp_path: Path, helper: bytes | None) -> dict[str, Path]:
    files = {EXE: tmp_path / EXE}
    files[EXE].write_bytes(elf(dynamic=False))
    files[EXE].chmod(0o755)
    if helper is not None:
        files[HELPER] = tmp_path / HELPER
        files[HELPER].write_bytes(helper)
        files[HELPER].chmod(0o755)
    files[BASH_TURN] = tmp_path / BASH_TURN
    files[BASH_TURN].write_bytes(elf(dynamic=False))
    return files


def assemble_linux(tmp_path: Path, files: dict[str, Path]) -> Path:
    project = build.metadata.load_pyproject()["project"]
    return build.assemble(TARGETS["musllinux-x86_64"], files, tmp_path / "out", project, 1_700_000_000)


def test_linux_wheel_refused_without_helper(tmp_path: Path) -> None:
    """Issue 10: on Linux no command runs without the helper, so no wheel lacks it."""
    with pytest.raises(BuildError, match="shellport-spawn-helper is missing"):
        assemble_linux(tmp_path, linux_natives(tmp_path, None))


def test_linux_helper_must_be_static(tmp_path: Path) -> None:
    """A static helper runs on every libc, so one file serves manylinux and musllinux."""
    check.check(assemble_linux(tmp_path / "ok", linux_natives(tmp_path, elf(dynamic=False))))
    wheel = assemble_linux(tmp_path / "bad", linux_natives(tmp_path, elf(dynamic=True)))
    with pytest.raises(check.CheckError, match="shellport-spawn-helper must be static"):
        check.check(wheel)


# --- issue 11: one recipe, and `make wheels WHEEL_TARGETS=...` -----------------------

import goreleaser  # noqa: E402
import targets  # noqa: E402


def _fake_wheels(tmp_path: Path, *names: str) -> list[Path]:
    out = []
    for name in names:
        t = TARGETS[name]
        plat = t.platform if t.platform != "macosx" else f"macosx_12_0_{t.arch}"
        wheel = tmp_path / f"shellport-0.1.0-py3-none-{plat}.whl"
        wheel.write_bytes(b"")
        out.append(wheel)
    return out


def test_issue11_fewer_targets_smoke_only_what_runs_here(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `make wheels WHEEL_TARGETS=...` used to smoke-test the native wheel and
    # the aarch64 one whether or not they were built.
    host = targets.host_target().name
    others = [n for n in TARGETS if n != host]
    wheels = _fake_wheels(tmp_path, host, others[0])
    plan = dict(build.smoke_plan(wheels))
    assert plan[wheels[0]] == "smoke"
    assert plan[wheels[1]] in ("smoke-qemu",) or plan[wheels[1]].startswith("not smoke-tested here")
    # Nothing that runs here: a note per wheel, not a failure on a missing file.
    only_foreign = tmp_path / "foreign"
    only_foreign.mkdir()
    foreign = [n for n in others if not (n == "manylinux-aarch64" and host == "manylinux-x86_64")]
    _fake_wheels(only_foreign, foreign[-1])
    build.smoke_dist(only_foreign)
    assert "not smoke-tested here" in capsys.readouterr().out
    with pytest.raises(BuildError, match="no wheels"):
        build.smoke_dist(tmp_path / "empty")


def test_issue11_goreleaser_config_is_written_from_the_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    assert goreleaser.render() == goreleaser.CONFIG.read_text()  # make lint checks this too
    text = goreleaser.render()
    recipe = targets.RECIPE
    assert f'ldflags: ["{recipe["go"]["ldflags"]}"]' in text
    assert f'MACOSX_DEPLOYMENT_TARGET={recipe["macos_min"]}' in text
    assert recipe["library"]["linux_include"] in text
    # A changed recipe changes the config (and so fails make lint until rewritten).
    monkeypatch.setitem(recipe["go"]["env"], "GOAMD64", "v3")
    assert "goamd64: [v3]" in goreleaser.render()


def test_issue11_one_recipe_for_every_build() -> None:
    # Nothing outside the recipe spells the flags: the Makefile, GoReleaser's
    # config (written from it) and the Go tests' helper build read it.
    root = targets.ROOT
    makefile = (root / "Makefile").read_text() + (root / "scripts/build-wheels/wheels.mk").read_text()
    testkit = (root / "internal/testkit/spawnhelper.go").read_text()
    for flag in ["-Werror", "-buildid=", "GOAMD64", "mmacosx-version-min", "-static"]:
        assert flag not in makefile, flag
    assert "-Werror" not in testkit and "recipe.json" in testkit
    for flag in targets.HELPER_CFLAGS:
        assert flag in targets.RECIPE["helper"]["cflags"]


# --- issue 18: every refusal of a manylinux wheel fails once ----------------------------
#
# Real ELF files from this machine's C compiler (CI installs gcc and libc6-dev
# for the native build): static programs for the executable and the helper,
# and shared libraries that break one manylinux rule each.

import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

MANYLINUX = TARGETS["manylinux-x86_64"]


def cc(tmp_path: Path, name: str, source: str, *flags: str) -> Path:
    if platform.machine() != "x86_64" or shutil.which("gcc") is None:
        pytest.skip("needs gcc on x86_64 Linux to build the x86_64 ELF files")
    tmp_path.mkdir(parents=True, exist_ok=True)
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    out = tmp_path / name
    subprocess.run(["gcc", "-O1", "-o", str(out), str(src), *flags], check=True, cwd=tmp_path)
    out.chmod(0o755)
    return out


def manylinux_wheel(tmp_path: Path, library_source: str, *library_flags: str) -> Path:
    """A manylinux wheel of static programs and the library built from library_source."""
    prog = cc(tmp_path, "prog", "int main(void) { return 0; }\n", "-static")
    lib = cc(tmp_path, "libshellport.so", library_source, "-shared", "-fPIC", *library_flags)
    natives = {EXE: prog, HELPER: prog, MANYLINUX.libname: lib, BASH_TURN: turn_builtin(tmp_path)}
    project = build.metadata.load_pyproject()["project"]
    return build.assemble(MANYLINUX, natives, tmp_path / "out", project, 1_700_000_000)


TURN_SOURCE = "#include <unistd.h>\nint f(int fd) { return (int)write(fd, \"x\", 1); }\n"


def turn_builtin(tmp_path: Path, *flags: str) -> Path:
    """A shared object calling the C library, linked as the recipe links the turn builtin unless flags say otherwise."""
    return cc(tmp_path, BASH_TURN, TURN_SOURCE, *(flags or ("-shared", "-fPIC", "-nostdlib")))


def test_issue16_turn_builtin_linked_to_a_c_library_is_refused(tmp_path: Path) -> None:
    """The turn builtin runs inside bash, glibc's or musl's: it may name no library of its own."""
    wheel = manylinux_wheel(tmp_path, OLD_LIBRARY)
    natives = check_natives_of(wheel)
    natives[BASH_TURN] = turn_builtin(tmp_path / "libc", "-shared", "-fPIC").read_bytes()
    problems = check._check_natives(MANYLINUX, natives, MANYLINUX.platform)
    assert problems == [f"{BASH_TURN} needs ['libc.so.6'] (2, 2, 5); it must need no library"], problems


OLD_LIBRARY = "#include <string.h>\nint f(char *d, const char *s) { return strlen(strcpy(d, s)); }\n"
# getrandom is GLIBC_2.25: newer than manylinux2014's 2.17.
NEW_GLIBC_LIBRARY = (
    "#include <sys/random.h>\nint f(char *b) { return (int)getrandom(b, 4, 0); }\n"
)


def test_issue18_manylinux_library_within_glibc_217_passes_our_checks(tmp_path: Path) -> None:
    """The control for the refusals below: the same build with old symbols only passes."""
    wheel = manylinux_wheel(tmp_path, OLD_LIBRARY)
    assert check._check_natives(MANYLINUX, check_natives_of(wheel), MANYLINUX.platform) == []


def check_natives_of(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as z:
        return {n.split("/")[-1]: z.read(n) for n in z.namelist() if n.startswith("shellport/_native/")}


def test_issue18_too_new_glibc_symbol_is_refused(tmp_path: Path) -> None:
    wheel = manylinux_wheel(tmp_path, NEW_GLIBC_LIBRARY)
    with pytest.raises(check.CheckError, match=r"libshellport.so needs GLIBC_2\.25 > 2\.17"):
        check.check(wheel)


def test_issue18_library_needing_more_than_libc_is_refused(tmp_path: Path) -> None:
    """A dependency outside what a manylinux wheel may assume (here one of our own) is refused."""
    extra = cc(tmp_path, "libextra.so", "int g(void) { return 1; }\n", "-shared", "-fPIC")
    wheel = manylinux_wheel(tmp_path, "int g(void);\nint f(void) { return g(); }\n",
                            f"-L{extra.parent}", "-l:libextra.so")
    with pytest.raises(check.CheckError, match=r"needs \[.*'libextra\.so'.*\]; only libc\.so\.6 is allowed"):
        check.check(wheel)


def auditwheel_or_skip() -> str:
    tool = check.find_auditwheel()
    if tool is None:
        pytest.skip("auditwheel is not installed (make wheel-tools; make test installs it first)")
    return tool


def test_issue18_auditwheel_refusal_is_a_failure(tmp_path: Path) -> None:
    """auditwheel itself finds the library too new (our own checks skipped): the check fails
    with auditwheel's words, not a note."""
    auditwheel_or_skip()
    wheel = manylinux_wheel(tmp_path, NEW_GLIBC_LIBRARY)
    with pytest.raises(check.CheckError, match="auditwheel does not find .* manylinux_2_17_x86_64 compatible"):
        check._auditwheel(wheel, MANYLINUX, True)
    control = manylinux_wheel(tmp_path / "old", OLD_LIBRARY)
    check._auditwheel(control, MANYLINUX, True)  # the same wheel with old symbols passes


def test_issue18_auditwheel_that_fails_to_run_is_a_failure(tmp_path: Path) -> None:
    """auditwheel exiting non-zero (here: it cannot read the wheel) fails the check."""
    auditwheel_or_skip()
    broken = tmp_path / "shellport-0.1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    broken.write_bytes(b"not a zip file")
    with pytest.raises(check.CheckError, match="auditwheel does not find"):
        check._auditwheel(broken, MANYLINUX, True)


def test_issue18_missing_auditwheel_fails_when_required(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(check, "find_auditwheel", lambda: None)
    wheel = tmp_path / "shellport-0.1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    with pytest.raises(check.CheckError, match="auditwheel is not installed"):
        check._auditwheel(wheel, MANYLINUX, True)
    check._auditwheel(wheel, MANYLINUX, False)  # not required: a note only
