"""What the integrations share: the missing-harness error and result shaping."""

from __future__ import annotations

import re
import signal
from typing import Any

from .._models import ToolResult

_EXIT_MARKER = re.compile(r"\n?\[exit code: (-?\d+)\]\Z")


def missing_harness(module: str, harness: str, extra: str) -> ImportError:
    """The error an integration raises when its harness is not installed."""
    return ImportError(
        f"shellport.integrations.{module} needs {harness}, which is not installed; "
        f"install it with: pip install 'shellport[{extra}]'"
    )


def exit_code(result: ToolResult) -> int | None:
    """The command's exit status as a subprocess would report it.

    The exit code when there is one; a negative signal number when the
    command was killed (as ``subprocess.Popen.returncode`` has it); None when
    the result says neither (an argument error, a reset shell).
    """
    code = result.meta.get("exitCode")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    name = result.meta.get("signal")
    if isinstance(name, str) and name:
        try:
            return -signal.Signals[name].value
        except KeyError:
            return -1
    return None


def strip_exit_marker(text: str, code: int | None) -> str:
    """Drop the final ``[exit code: N]`` line when the harness shows N itself."""
    m = _EXIT_MARKER.search(text)
    if m is None or code is None or int(m.group(1)) != code:
        return text
    return text[: m.start()] + ("\n" if m.group(0).startswith("\n") else "")


def call_arguments(profile: str, command: str, description: str, **extra: Any) -> dict[str, Any]:
    """Arguments of one bash call in either profile."""
    args: dict[str, Any] = {"command": command}
    if profile != "persistent":
        args["description"] = description
        args.update({k: v for k, v in extra.items() if v is not None})
    return args
