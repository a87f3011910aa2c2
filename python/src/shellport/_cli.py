"""The ``shellport`` console script (and ``python -m shellport``): runs the bundled executable."""

from __future__ import annotations

import os
import sys

from ._exceptions import ShellportError
from ._native import find_binary, read_settings


def main() -> None:
    """Replace this process with the shellport executable (``shellport serve``, ``call``, …)."""
    try:
        path = find_binary(None, read_settings(trust_env=True)).path
    except ShellportError as exc:
        sys.stderr.write(f"shellport: {exc}\n")
        sys.exit(127)
    args = [path, *sys.argv[1:]]
    try:
        os.execv(path, args)
    except OSError as exc:
        sys.stderr.write(f"shellport: cannot run {path!r}: {exc}\n")
        sys.exit(126)
