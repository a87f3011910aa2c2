"""Install a wheel the way a user would and run smoke_test.py against it.

smoke_venv: a fresh virtualenv, `pip install --no-index` (no network, no
build step), the console script, and the smoke test through the library and
the process transports with the spawn helper the wheel carries — and both
again with SHELLPORT_SPAWN_HELPER naming a wrapper of it that records its
use, to prove the variable is honoured.

smoke_qemu: the aarch64 wheel on an x86_64 host. The executable runs under
qemu-aarch64; the library, which an x86_64 Python cannot load, is driven
through bridge.c (cross-compiled, also under qemu), which serves the protocol
on stdio over the C ABI. The same smoke test drives both. Processes an
emulated program starts run natively unless binfmt_misc says otherwise, so
there the runtime uses a helper built for this host (the protocol does not
depend on the architecture); the wheel's aarch64 helper only shows it runs,
since qemu-user refuses the child-subreaper prctl (the aarch64 CI runner
supervises with it for real).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from targets import EXE, HELPER, HERE, TARGETS, build_helper

SMOKE_TEST = HERE / "smoke_test.py"
AARCH64_SYSROOT = "/usr/aarch64-linux-gnu"


class SmokeError(Exception):
    """An installed wheel did not work."""


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SHELLPORT_", "PIP_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    env.update(extra)
    return env


def _run(argv: list[str], env: dict[str, str], cwd: str, what: str, timeout: int = 300) -> str:
    try:
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise SmokeError(f"{what}: timed out after {timeout}s") from exc
    if proc.returncode != 0:
        raise SmokeError(f"{what} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def _helper_wrapper(helper: Path, directory: Path) -> tuple[Path, Path]:
    """A script that records its use, then runs the real helper."""
    marker = directory / "helper-used"
    wrapper = directory / "helper-wrapper"
    # A supervisor exec'd on Linux reads its program's strings from a spec
    # file (--spec 5), whose strings (past its 24-byte header) the wrapper
    # appends too.
    wrapper.write_text(f"#!/bin/sh\necho \"$*\" >> '{marker}'\n"
                       f"case \" $* \" in *' --spec 5 '*) tail -c +25 < /proc/self/fd/5 | tr '\\0' ' ' >> '{marker}';; esac\n"
                       f"exec '{helper}' \"$@\"\n")
    wrapper.chmod(0o755)
    return wrapper, marker


def smoke_venv(wheel: Path) -> None:
    wheel = wheel.resolve()
    with tempfile.TemporaryDirectory(prefix="shellport-venv-") as tmp:
        venv = Path(tmp) / "venv"
        env = _clean_env()
        _run([sys.executable, "-m", "venv", str(venv)], env, tmp, "python -m venv")
        py = str(venv / "bin" / "python")
        _run([py, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", str(wheel)],
             env, tmp, "pip install --no-index")
        native = _run([py, "-c", "import shellport._native as n; print(n.NATIVE_DIR)"], env, tmp,
                      "import shellport").strip()
        for name in os.listdir(native):
            path = os.path.join(native, name)
            if name in (EXE, HELPER) and not os.access(path, os.X_OK):
                raise SmokeError(f"pip installed {path} without the execute bit")
        version = _run([str(venv / "bin" / "shellport"), "version"], env, tmp, "shellport version")
        print(f"console script: shellport version -> {version.strip()}")
        by_module = _run([py, "-m", "shellport", "version"], env, tmp, "python -m shellport version")
        if by_module.strip() != version.strip():
            raise SmokeError(f"python -m shellport version printed {by_module!r}, not {version!r}")
        out = _run([str(venv / "bin" / "shellport"), "call", "--config", '{"profile":"persistent"}',
                    "bash", '{"command":"echo from-the-console-script"}'], env, tmp, "shellport call")
        if "from-the-console-script" not in out:
            raise SmokeError(f"shellport call printed {out!r}")
        transports = ["process"]
        if sys.platform == "darwin" or os.path.exists(os.path.join(native, "libshellport.so")):
            transports.insert(0, "library")
        if sys.platform == "darwin" and not os.path.exists(os.path.join(native, "libshellport.dylib")):
            transports.remove("library")
        for transport in transports:
            print(_run([py, str(SMOKE_TEST), transport], env, tmp, f"smoke test ({transport})").strip())
        wrapper, marker = _helper_wrapper(Path(native) / HELPER, Path(tmp))
        henv = _clean_env(SHELLPORT_SPAWN_HELPER=str(wrapper))
        for transport in transports:
            marker.unlink(missing_ok=True)
            out = _run([py, str(SMOKE_TEST), transport, "--helper-marker", str(marker)], henv, tmp,
                       f"smoke test ({transport}, SHELLPORT_SPAWN_HELPER)")
            print(out.strip() + " [SHELLPORT_SPAWN_HELPER]")


def smoke_qemu(wheel: Path) -> None:
    qemu = shutil.which("qemu-aarch64")
    cc = shutil.which("aarch64-linux-gnu-gcc")
    if qemu is None or cc is None:
        raise SmokeError("needs qemu-aarch64 and aarch64-linux-gnu-gcc "
                         "(apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross)")
    with tempfile.TemporaryDirectory(prefix="shellport-qemu-") as tmp:
        unpacked = Path(tmp) / "wheel"
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(unpacked)
        native = unpacked / "shellport" / "_native"
        exe, lib, helper = native / EXE, native / "libshellport.so", native / HELPER
        for f in (exe, helper):
            f.chmod(0o755)  # extractall drops modes
        host_helper = Path(tmp) / "host" / HELPER
        build_helper(TARGETS["manylinux-x86_64"], host_helper)
        bridge = Path(tmp) / "bridge"
        env = _clean_env(QEMU_LD_PREFIX=AARCH64_SYSROOT, PYTHONPATH=str(unpacked),
                         SHELLPORT_SPAWN_HELPER=str(host_helper))
        # qemu-user refuses PR_SET_CHILD_SUBREAPER, so the aarch64 helper
        # can only show here that it runs; the arm64 CI job supervises with it.
        proc = subprocess.run([qemu, str(helper)], env=env, capture_output=True, text=True, timeout=60)
        if proc.returncode != 127 or "usage: shellport-spawn-helper" not in proc.stderr:
            raise SmokeError(f"the aarch64 helper under qemu: status {proc.returncode}:\n{proc.stdout}{proc.stderr}")
        print("aarch64 under qemu: the spawn helper runs")
        _run([cc, "-O2", "-o", str(bridge), str(HERE / "bridge.c"), "-ldl", "-lpthread"], env, tmp,
             "building bridge.c for aarch64")
        v_exe = _run([qemu, str(exe), "version"], env, tmp, "aarch64 shellport version").strip()
        v_lib = _run([qemu, str(bridge), str(lib), "version"], env, tmp, "aarch64 shellport_version").strip()
        print(f"aarch64 under qemu: executable {v_exe}, library {v_lib}")
        transports = {"process": [qemu, str(exe), "serve"], "library": [qemu, str(bridge), str(lib)]}
        for name, argv in transports.items():
            out = _run([sys.executable, str(SMOKE_TEST), json.dumps(argv)], env, tmp,
                       f"aarch64 smoke test ({name})", timeout=600)
            print(out.strip().replace("smoke ok:", f"smoke ok (aarch64 {name}):"))
