"""A standard PEP 517 wheel build of python/ (issue 11).

`pip wheel ./python` used to make a py3-none-any wheel with this machine's
binaries inside, or, from a clean clone, a wheel with none. The build hook
(python/hatch_build.py) makes a platform wheel for this machine or refuses,
naming the commands that build the native files.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import binary_path, library_path
from shellport import _native

PYTHON_DIR = Path(__file__).resolve().parents[1]


def _pip_wheel(project: Path, out: Path) -> subprocess.CompletedProcess[str]:
    # Offline: hatchling is in the dev venv, so no build isolation is needed.
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(out), str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip


def test_pip_wheel_is_a_platform_wheel_for_this_machine(tmp_path: Path) -> None:
    binary_path()
    if _native.library_supported() is None:
        library_path()
    out = _pip_wheel(PYTHON_DIR, tmp_path)
    assert out.returncode == 0, out.stderr
    (wheel,) = tmp_path.glob("*.whl")
    assert "-py3-none-any" not in wheel.name
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(_machine(), _machine())
    if sys.platform.startswith("linux"):
        assert wheel.name.endswith(f"-py3-none-linux_{machine}.whl"), wheel.name
    with zipfile.ZipFile(wheel) as z:
        info = {i.filename: i for i in z.infolist()}
        assert "Root-Is-Purelib: false" in z.read("shellport-0.1.0.dist-info/WHEEL").decode()
    for name in ("shellport", "shellport-spawn-helper"):
        mode = info[f"shellport/_native/{name}"].external_attr >> 16
        assert mode & stat.S_IXUSR, name


def test_pip_wheel_without_native_files_names_the_command(tmp_path: Path) -> None:
    # What a clean clone (or the sdist) gives: the Python sources alone.
    project = tmp_path / "python"
    shutil.copytree(
        PYTHON_DIR,
        project,
        ignore=shutil.ignore_patterns("_native", "__pycache__", "*.egg-info", "tests*"),
    )
    out = _pip_wheel(project, tmp_path / "out")
    assert out.returncode != 0
    assert "missing from" in out.stderr
    assert "make native" in out.stderr
    assert "make wheels" in out.stderr
    assert not list(tmp_path.rglob("*.whl"))


def test_pip_wheel_refuses_native_files_of_another_machine(tmp_path: Path) -> None:
    project = tmp_path / "python"
    shutil.copytree(
        PYTHON_DIR, project, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "tests*")
    )
    exe = project / "src" / "shellport" / "_native" / "shellport"
    head = bytearray(exe.read_bytes()[:64])
    if head[:4] != b"\x7fELF":
        pytest.skip("the ELF case; a Mac builds Mach-O files")
    head[18:20] = (183 if head[18] == 62 else 62).to_bytes(2, "little")  # swap x86_64/aarch64
    exe.write_bytes(bytes(head) + exe.read_bytes()[64:])
    out = _pip_wheel(project, tmp_path / "out")
    assert out.returncode != 0
    assert "not built for this machine" in out.stderr


def _machine() -> str:
    import platform

    return platform.machine().lower()
