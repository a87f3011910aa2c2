"""Create bench/.venv: shellport (editable, with the native files from
`make native`) plus the peers in requirements.txt, each installed on its own
so that one peer that cannot be installed does not stop the others. What
happened to each is written to <venv>/peers.json for the report.

openhands-aci needs Python >= 3.12, so a CPython >= 3.12 found on
this machine is used for the venv (BENCH_PYTHON overrides the choice); with
none, the running interpreter is used and openhands-aci is reported as not
installable.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def say(msg: str) -> None:
    sys.stderr.write(f"[bench setup] {msg}\n")
    sys.stderr.flush()


def version_of(python: str) -> tuple | None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def pick_python() -> str:
    forced = os.environ.get("BENCH_PYTHON")
    if forced:
        return forced
    candidates: list[str] = []
    for name in ("python3.14", "python3.13", "python3.12"):
        path = shutil.which(name)
        if path:
            candidates.append(path)
    pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates += sorted(
        glob.glob(os.path.join(pyenv_root, "versions", "3.1[2-9]*", "bin", "python3")), reverse=True
    )
    # The running interpreter if it is new enough, else the oldest >= 3.12
    # found (the one the peers' binary wheels most likely cover).
    best, best_v = sys.executable, version_of(sys.executable) or (0, 0)
    for c in candidates:
        v = version_of(c)
        if v and v >= (3, 12) and (best_v < (3, 12) or v < best_v):
            best, best_v = c, v
    return best


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def pip(venv: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [os.path.join(venv, "bin", "python"), "-m", "pip", "-q", *args],
        capture_output=True,
        text=True,
    )


def main() -> int:
    venv = os.path.join(HERE, ".venv")
    reqs_path = os.path.join(HERE, "requirements.txt")
    status_path = os.path.join(venv, "peers.json")
    with open(reqs_path) as f:
        reqs = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    python = pick_python()
    digest = hashlib.sha256(("\n".join(reqs) + python).encode()).hexdigest()
    stamp = os.path.join(venv, ".bench-stamp")
    if _read(stamp) == digest and os.path.exists(status_path):
        say(f"{venv} is up to date")
        return 0
    say(f"creating {venv} with {python}")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([python, "-m", "venv", venv], check=True)
    pip(venv, "install", "--upgrade", "pip")
    status = {"python": python, "python_version": ".".join(map(str, version_of(python) or ()))}
    for req in reqs:
        name = req.split("==")[0].split(">=")[0].strip()
        say(f"installing {req}")
        p = pip(venv, "install", req)
        if p.returncode == 0:
            status[name] = {"ok": True, "requirement": req}
        else:
            lines = [ln for ln in (p.stderr or p.stdout).splitlines() if ln.strip()]
            err = next(
                (ln for ln in lines if "ERROR" in ln and "Ignored" not in ln),
                lines[-1] if lines else f"pip exited {p.returncode}",
            )
            if name == "openhands-aci" and (version_of(python) or (0, 0)) < (3, 12):
                err = f"needs Python >= 3.12 and none was found ({err.strip()})"
            status[name] = {"ok": False, "requirement": req, "error": err.strip()[:300]}
            say(f"  could not install {req}: {status[name]['error']}")
    say("installing shellport from python/ (editable)")
    p = pip(venv, "install", "-e", os.path.join(ROOT, "python"))
    if p.returncode != 0:
        say(p.stderr[-2000:])
        return 1
    with open(status_path, "w") as f:
        json.dump(status, f, indent=1)
    with open(stamp, "w") as f:
        f.write(digest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
