#!/usr/bin/env python3
"""Run `go test -json` with the given arguments and print what a reader needs.

Per package the usual `ok`/`FAIL` line, the whole output of every failed
test, and at the end every skipped test with its reason: a skip must name a
missing platform feature (issue 18), and a plain `go test` hides skips. The
exit status is go test's.

    python3 scripts/gotest.py -race -count=1 ./...
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict


def main(args: list[str]) -> int:
    go = os.environ.get("GO", "go")
    proc = subprocess.Popen([go, "test", "-json", *args], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    output: dict[tuple[str, str], list[str]] = defaultdict(list)
    skipped: list[tuple[str, str, str]] = []
    failed = 0
    for line in proc.stdout:
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:  # build errors and the like come as text
            sys.stdout.write(line)
            continue
        pkg, test, action = ev.get("Package", ""), ev.get("Test", ""), ev.get("Action")
        key = (pkg, test)
        if action == "build-output":  # compiler errors (Go 1.24+ reports them as events)
            sys.stdout.write(ev.get("Output", ""))
        elif action == "output":
            output[key].append(ev["Output"])
            if not test and not ev["Output"].startswith(("=== ", "--- ", "PASS\n", "FAIL\n")):
                # package lines: ok, FAIL, no test files, build failures
                sys.stdout.write(ev["Output"])
        elif action == "skip" and test:
            lines = [o.strip() for o in output.pop(key, []) if not o.startswith(("=== ", "--- "))]
            skipped.append((pkg, test, " / ".join(line for line in lines if line) or "no reason"))
        elif action == "fail" and test:
            failed += 1
            sys.stdout.write(f"--- FAIL: {pkg} {test}\n")
            sys.stdout.writelines(output.pop(key, []))
        elif action in ("pass", "skip", "fail"):
            output.pop(key, None)
        sys.stdout.flush()
    code = proc.wait()
    if skipped:
        print(f"\n{len(skipped)} skipped Go tests (each reason must name a missing platform feature):")
        for pkg, test, why in skipped:
            print(f"  SKIP {pkg.removeprefix('github.com/shellport/shellport/')} {test}: {why}")
    if failed:
        print(f"\n{failed} Go tests failed")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
