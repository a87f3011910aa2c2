"""Command: how to start ``shellport serve`` in a sandbox, as Runtime(transport=...) takes it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .._exceptions import BinaryNotFound, ProcessExited, TransportError, VersionMismatch
from .._version import __version__

__all__ = ["DEFAULT_HEARTBEAT", "Command", "serve_argv"]

#: Seconds of silence after which a remote runtime gives up on its client
#: (``shellport serve --heartbeat``); the Runtime pings four times as often.
DEFAULT_HEARTBEAT = 10.0

#: The shortest heartbeat ``shellport serve`` accepts.
MIN_HEARTBEAT = 0.1


@dataclass(frozen=True)
class Command:
    """A command line that starts ``shellport serve`` inside a sandbox.

    Pass it as ``Runtime(transport=...)``. The helpers of ``shellport.remote``
    build it; build one yourself for a platform they do not cover.

    ``argv`` is what runs here (``podman exec -i c1 /opt/shellport/shellport
    serve ...``); ``platform`` names the channel (``"podman"``), which the
    Runtime reports as its transport name; ``where`` says where the runtime
    runs, for messages (``"podman container 'c1'"``); ``executable`` is the
    runtime's path there. With ``expect_version`` (this package's version
    unless None) the Runtime refuses a runtime of another version, naming
    both, and ``install_hint`` says how to put the right one there.
    """

    argv: tuple[str, ...]
    platform: str
    where: str
    executable: str
    expect_version: str | None = __version__
    install_hint: str = ""

    def __post_init__(self) -> None:
        if not self.argv or not all(isinstance(a, str) for a in self.argv):
            raise TypeError(f"Command.argv must be a non-empty tuple of strings, not {self.argv!r}")

    # --- used by Runtime -----------------------------------------------------------

    def _check_version(self, version: str) -> None:
        """Raise VersionMismatch when the runtime's version is not the expected one."""
        if self.expect_version is not None and version != self.expect_version:
            raise VersionMismatch(
                f"the shellport runtime in {self.where} ({self.executable}) is version "
                f"{version}, but this Python package is shellport {self.expect_version}. "
                f"{self._hint()}"
            )

    def _explain(self, exc: ProcessExited) -> TransportError | None:
        """A clearer error for a runtime that would not start, or None to keep exc."""
        err = exc.stderr
        if "expects version" in err:
            return VersionMismatch(
                f"the shellport runtime in {self.where} ({self.executable}) refused to serve "
                f"shellport {self.expect_version}: {_line_with(err, 'expects version')}. "
                f"{self._hint()}"
            )
        unknown = _line_with(err, "unknown flag")
        if unknown or exc.returncode == 2:
            # 2 is serve's usage error; the channels' own failures use other
            # codes (docker and podman 125-127, ssh 255).
            why = unknown or "it refused its command line (exit status 2, a usage error)"
            return VersionMismatch(
                f"the shellport runtime in {self.where} ({self.executable}) is older than this "
                f"Python package (shellport {__version__}): {why}. {self._hint()}"
            )
        if exc.returncode in (126, 127):
            # What exec channels and shells answer for a command they cannot
            # find (127) or run (126: not executable, another architecture).
            return BinaryNotFound(
                f"cannot start the shellport runtime in {self.where} at {self.executable!r}: "
                f"{_last_line(err) or exc}. {self._hint()}"
            )
        return None

    def _hint(self) -> str:
        return self.install_hint or "Install this package's executable there."


def serve_argv(executable: str, heartbeat: float | None) -> list[str]:
    """``EXECUTABLE serve``, with the flag for a heartbeat.

    No --expect-version: the version is checked on the handshake, whose
    answer comes on stdout. A refusal comes on stderr, which some channels
    drop when the process ends at once (podman exec under load did).
    """
    argv = [executable, "serve"]
    if heartbeat is not None:
        ms = heartbeat_ms(heartbeat)
        argv += ["--heartbeat", f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"]
    return argv


def heartbeat_ms(seconds: float) -> int:
    """Validate a heartbeat in seconds and return it in milliseconds."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"heartbeat must be a number of seconds or None, not {seconds!r}")
    if not math.isfinite(seconds) or seconds < MIN_HEARTBEAT:
        raise ValueError(
            f"heartbeat={seconds!r} is too short: the runtime needs at least {MIN_HEARTBEAT} s "
            "between messages (or None to turn the heartbeat off)"
        )
    return round(seconds * 1000)


def argv_tuple(argv: Sequence[str]) -> tuple[str, ...]:
    return tuple(str(a) for a in argv)


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _line_with(text: str, needle: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if needle in ln), "")
