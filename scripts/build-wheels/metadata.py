"""The non-native parts of a wheel: Python files, METADATA, WHEEL, entry
points, licenses, and the version and timestamp every build agrees on."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from targets import ROOT, BuildError
from wheelfile import Entry

PYTHON_DIR = ROOT / "python"
PACKAGE_DIR = PYTHON_DIR / "src" / "shellport"
GENERATOR = "shellport scripts/build-wheels"


def load_pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError as exc:  # Python < 3.11
        raise BuildError("building wheels needs Python 3.11+ (for tomllib)") from exc
    with open(PYTHON_DIR / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def check_versions(project: dict) -> str:
    """Return the version, after checking pyproject, the package and Go agree."""
    version = project["version"]
    py = re.search(r'__version__\s*=\s*"([^"]+)"', (PACKAGE_DIR / "_version.py").read_text())
    go = re.search(r'const Version = "([^"]+)"', (ROOT / "internal" / "core" / "runtime.go").read_text())
    found = {"python/pyproject.toml": version, "python/src/shellport/_version.py": py and py.group(1),
             "internal/core/runtime.go": go and go.group(1)}
    if len(set(found.values())) != 1:
        raise BuildError(f"versions disagree, and a wheel would refuse to run: {found}")
    return version


def source_date_epoch() -> int:
    """SOURCE_DATE_EPOCH, else the time of the last commit."""
    if value := os.environ.get("SOURCE_DATE_EPOCH"):
        return int(value)
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
        return int(out)
    except (OSError, subprocess.CalledProcessError, ValueError) as exc:
        raise BuildError("set SOURCE_DATE_EPOCH (not in a git checkout)") from exc


def normalized_name(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def package_entries() -> list[Entry]:
    """The Python package: every .py file and py.typed, never _native/ or caches."""
    entries = []
    for path in sorted(PACKAGE_DIR.rglob("*")):
        rel = path.relative_to(PACKAGE_DIR)
        if not path.is_file() or rel.parts[0] == "_native" or "__pycache__" in rel.parts:
            continue
        if path.suffix != ".py" and path.name != "py.typed":
            continue
        entries.append(Entry(f"shellport/{rel.as_posix()}", path.read_bytes()))
    return entries


def metadata(project: dict) -> bytes:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        "License: MIT",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, deps in sorted(project.get("optional-dependencies", {}).items()):
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    lines.append("Description-Content-Type: text/markdown")
    readme = (PYTHON_DIR / project.get("readme", "README.md")).read_text()
    return ("\n".join(lines) + "\n\n" + readme).encode()


def wheel_file(tags: list[str]) -> bytes:
    lines = ["Wheel-Version: 1.0", f"Generator: {GENERATOR}", "Root-Is-Purelib: false"]
    lines += [f"Tag: {t}" for t in tags]
    return ("\n".join(lines) + "\n").encode()


def entry_points(project: dict) -> bytes:
    """The console scripts, then every [project.entry-points.GROUP] table (the
    inspect_ai sandbox registration), groups and names sorted."""
    scripts = project.get("scripts", {})
    lines = ["[console_scripts]"] + [f"{k} = {v}" for k, v in sorted(scripts.items())]
    for group, entries in sorted(project.get("entry-points", {}).items()):
        lines += ["", f"[{group}]"] + [f"{k} = {v}" for k, v in sorted(entries.items())]
    return ("\n".join(lines) + "\n").encode()


def third_party_notices(goos: str, goarch: str) -> bytes:
    """License texts of the Go code compiled into the native files."""
    fmt = "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}"
    out = ""
    # Each as it is built: the library with cgo (its package has no files
    # without it), the executable without. Listing compiles nothing, so no
    # C compiler for the target is needed.
    for pkg, cgo in (("./capi", "1"), ("./cmd/shellport", "0")):
        env = dict(os.environ, GOOS=goos, GOARCH=goarch, CGO_ENABLED=cgo, GOFLAGS="-mod=readonly")
        out += subprocess.run(["go", "list", "-deps", "-f", fmt, pkg], cwd=ROOT, env=env,
                              check=True, capture_output=True, text=True).stdout
    goroot = subprocess.run(["go", "env", "GOROOT"], check=True, capture_output=True,
                            text=True).stdout.strip()
    parts = [("The Go standard library", Path(goroot) / "LICENSE")]
    for line in sorted(set(filter(None, out.splitlines()))):
        path, version, directory = line.split(" ", 2)
        parts.append((f"{path} {version}", Path(directory) / "LICENSE"))
    text = ["The native files in this wheel include code from the following projects.\n"]
    for title, lic in parts:
        if not lic.is_file():
            raise BuildError(f"no LICENSE file for {title} at {lic}")
        text.append(f"\n{'=' * 72}\n{title}\n{'=' * 72}\n\n{lic.read_text()}")
    return "".join(text).encode()


def dist_info_entries(project: dict, dist_info: str, tags: list[str], goos: str,
                      goarch: str) -> list[Entry]:
    return [
        Entry(f"{dist_info}/METADATA", metadata(project)),
        Entry(f"{dist_info}/WHEEL", wheel_file(tags)),
        Entry(f"{dist_info}/entry_points.txt", entry_points(project)),
        Entry(f"{dist_info}/licenses/LICENSE", (ROOT / "LICENSE").read_bytes()),
        Entry(f"{dist_info}/licenses/THIRD_PARTY_NOTICES", third_party_notices(goos, goarch)),
    ]
