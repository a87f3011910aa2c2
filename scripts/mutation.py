#!/usr/bin/env python3
"""Mutation testing of the Go core and the Python package (`make mutation`).

Go: gremlins (pinned below) mutates one package at a time and runs that
package's own tests against each mutant. Python: mutmut 3 mutates the
modules named below and runs the unit tests named below against each.
Both are bounded for a 2-core machine (one worker, chosen packages); the
scores and the surviving mutants go to build/mutation/summary.md, which
docs/TESTING.md reports.

    python3 scripts/mutation.py [--go PKG,...] [--python MOD,...] [--skip-python]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "mutation"
GREMLINS = "github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0"
MUTMUT = "mutmut==3.8.1"

# The core packages: the wire (rpc), the dispatcher (core), the carriers and
# the executable's serve loop, exact JSON, and the output dialect.
# A package's tests run once per mutant, so the slow ones are mutated in the
# files that carry the findings only: the serve loop (signals, draining,
# the message limit), the session checks and the catalog (ids, env names,
# description overrides).
GO_PACKAGES: dict[str, list[str] | None] = {
    "internal/rpc": None,
    "internal/strictjson": None,
    "internal/carrier/stdio": None,
    "internal/tools/output": None,
    "cmd/shellport": ["serve.go"],
    "internal/core": ["session.go", "catalog.go"],
}
# Beyond gremlins' defaults: && and || swapped, break and continue swapped.
GREMLINS_FLAGS = ["--invert-logical", "--invert-loopctrl"]

# The Python package's protocol client and its models and errors, mutated
# against the unit tests that need no runtime (fast, one process).
PY_MODULES = ["src/shellport/_client.py", "src/shellport/_models.py", "src/shellport/_exceptions.py"]
PY_TESTS = ["tests/test_client.py", "tests/test_errors.py", "tests/test_api.py"]


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, text=True, **kw)  # type: ignore[call-overload,no-any-return]


def gremlins() -> str:
    tools = ROOT / "build" / "tools-bin"
    exe = tools / "gremlins"
    if not exe.exists():
        env = {**os.environ, "GOBIN": str(tools)}
        run([os.environ.get("GO", "go"), "install", GREMLINS], env=env, check=True)
    return str(exe)


def excludes(pkg: str) -> list[str]:
    """gremlins -E flags leaving only the package's chosen files."""
    only = GO_PACKAGES.get(pkg)
    if not only:
        return []
    flags = []
    for path in sorted((ROOT / pkg).glob("*.go")):
        if path.name not in only and not path.name.endswith("_test.go"):
            flags += ["-E", "^" + path.name.replace(".", "\\.") + "$"]  # relative to the package
    return flags


def go_mutation(packages: list[str]) -> list[dict]:
    exe = gremlins()
    for pkg in packages:
        out = OUT / (pkg.replace("/", "_") + ".json")
        out.unlink(missing_ok=True)
        # -count=1: gremlins times each mutant's run against its first, the
        # coverage run, which a cached test result would make instant.
        env = {**os.environ, "GOFLAGS": (os.environ.get("GOFLAGS", "") + " -count=1").strip()}
        proc = run(
            [exe, "unleash", "--workers", "1", "--test-cpu", "1", "--timeout-coefficient", "10",
             *GREMLINS_FLAGS, *excludes(pkg), "-o", str(out), "./" + pkg],
            cwd=ROOT, capture_output=True, env=env,
        )
        (OUT / (pkg.replace("/", "_") + ".log")).write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0 or not out.exists():
            print(proc.stdout[-2000:], proc.stderr[-2000:])
    return go_report(packages)


def go_report(packages: list[str]) -> list[dict]:
    """The table rows of the packages' last gremlins results."""
    rows = []
    for pkg in packages:
        out = OUT / (pkg.replace("/", "_") + ".json")
        if not out.exists():
            rows.append({"package": pkg, "error": "no result (gremlins failed or did not run)"})
            continue
        data = json.loads(out.read_text())
        lived = [
            f"{pkg}/{f['file_name']}:{m['line']}:{m['column']} {m['type']}"
            for f in data["files"] for m in f["mutations"] if m["status"] == "LIVED"
        ]
        timed_out = sum(1 for f in data["files"] for m in f["mutations"] if m["status"] == "TIMED OUT")
        rows.append({
            "package": pkg, "killed": data["mutants_killed"], "lived": data["mutants_lived"],
            "timed_out": timed_out, "not_covered": data["mutants_not_covered"],
            "efficacy": data["test_efficacy"], "coverage": data["mutations_coverage"],
            "seconds": round(data["elapsed_time"]), "survivors": lived,
            "files": ", ".join(GO_PACKAGES.get(pkg) or ["all"]),
        })
    return rows


def python_mutation(modules: list[str], tests: list[str]) -> dict:
    venv = ROOT / "build" / "mutation-venv"
    py = venv / "bin" / "python"
    stamp = venv / ".installed"
    if not stamp.exists():
        run([sys.executable, "-m", "venv", str(venv)], check=True)
        run([str(py), "-m", "pip", "install", "--quiet", MUTMUT, "pytest", "pytest-asyncio"], check=True)
        run([str(py), "-m", "pip", "install", "--quiet", "-e", str(ROOT / "python")], check=True)
        stamp.touch()
    # mutmut 3 reads its settings from setup.cfg in the directory it runs
    # in; a scratch copy of python/ keeps the checkout clean.
    work = OUT / "python"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(ROOT / "python", work, ignore=shutil.ignore_patterns("mutants", "__pycache__", ".pytest_cache"),
                    symlinks=True)
    (work / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths =" + "".join(f"\n    {m}" for m in modules) + "\n"
        "pytest_add_cli_args_test_selection =" + "".join(f"\n    {t}" for t in tests) + "\n"
        "also_copy = src/shellport\n"
    )
    started = time.monotonic()
    native = ROOT / "python" / "src" / "shellport" / "_native"
    env = {**os.environ, "SHELLPORT_BINARY_PATH": str(native / "shellport"),
           "SHELLPORT_LIBRARY_PATH": str(native / "libshellport.so"),
           "SHELLPORT_SPAWN_HELPER": str(native / "shellport-spawn-helper")}
    proc = run([str(venv / "bin" / "mutmut"), "run", "--max-children", "2"], cwd=work, capture_output=True, env=env)
    (OUT / "python.log").write_text(proc.stdout + proc.stderr)
    results = run([str(venv / "bin" / "mutmut"), "results", "--all", "true"], cwd=work, capture_output=True)
    counts: dict[str, int] = {}
    survivors = []
    for line in results.stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if not name:
            continue
        counts[status] = counts.get(status, 0) + 1
        if status == "survived":
            survivors.append(name)
    killed, lived = counts.get("killed", 0), counts.get("survived", 0)
    return {
        "modules": modules, "counts": counts, "survivors": survivors,
        "efficacy": 100.0 * killed / (killed + lived) if killed + lived else 0.0,
        "seconds": round(time.monotonic() - started), "returncode": proc.returncode,
    }


def summary(go_rows: list[dict], py: dict | None) -> str:
    lines = ["# Mutation testing summary (make mutation)", "",
             "| package | files | killed | lived | timed out | not covered | efficacy | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for r in go_rows:
        if "error" in r:
            lines.append(f"| {r['package']} | {r['error']} | | | | | | |")
            continue
        lines.append(f"| {r['package']} | {r['files']} | {r['killed']} | {r['lived']} | {r['timed_out']} | "
                     f"{r['not_covered']} | {r['efficacy']:.1f}% | {r['seconds']} |")
    if py is not None:
        c = py["counts"]
        lines.append(f"| python | {', '.join(Path(m).name for m in py['modules'])} | {c.get('killed', 0)} | "
                     f"{c.get('survived', 0)} | {c.get('timeout', 0)} | {c.get('no tests', 0)} | "
                     f"{py['efficacy']:.1f}% | {py['seconds']} |")
    lines += ["", "## Surviving mutants", ""]
    for r in go_rows:
        lines += [f"- {s}" for s in r.get("survivors", [])]
    if py is not None:
        lines += [f"- python {s}" for s in py["survivors"]]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--go", default=",".join(GO_PACKAGES), help="Go packages, comma-separated ('' for none)")
    ap.add_argument("--python", default=",".join(PY_MODULES), help="Python modules under python/")
    ap.add_argument("--skip-python", action="store_true")
    ap.add_argument("--report", action="store_true", help="only tabulate the last results of --go")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    packages = [p for p in args.go.split(",") if p]
    if args.report:
        go_rows, py = go_report(packages), None
        saved = OUT / "python.json"
        if saved.exists():
            py = json.loads(saved.read_text())
    else:
        go_rows = go_mutation(packages)
        py = None if args.skip_python else python_mutation([m for m in args.python.split(",") if m], PY_TESTS)
        if py is not None:
            (OUT / "python.json").write_text(json.dumps(py))
    text = summary(go_rows, py)
    (OUT / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
