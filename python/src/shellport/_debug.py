"""SHELLPORT_DEBUG: the ``shellport`` loggers, to standard error, without code.

The package logs through the standard ``logging`` module and adds no
handler of its own (only a NullHandler), as a library should: configure
``logging.getLogger("shellport")`` like any other logger. Two loggers:

``shellport``
    DEBUG: which transport was chosen and why (``auto`` falling back to the
    executable, an address-space limit), the runtime starting and closing,
    a connection ending.
``shellport.wire``
    DEBUG: every protocol frame, both ways (``-> {...}`` sent, ``<- {...}``
    received; frames over 64 KiB are clipped). A child of ``shellport``, so
    enabling DEBUG there enables it too unless its own level is raised.

``SHELLPORT_DEBUG`` turns them on for people who cannot change the code
(a comma-separated list; empty, ``0``, ``false``, ``no`` and ``off`` mean
nothing): ``1`` (or ``true``, ``yes``, ``on``, ``debug``) the ``shellport``
logger at DEBUG without frames, ``wire`` with frames. It attaches one
handler that writes to the current standard error. Any other word raises
ShellportError at ``Runtime()``, naming the values that work.
"""

from __future__ import annotations

import logging
import sys

from ._exceptions import ShellportError

ENV_DEBUG = "SHELLPORT_DEBUG"

OFF = ("", "0", "false", "no", "off")
ON = ("1", "true", "yes", "on", "debug")
WIRE = "wire"

log = logging.getLogger("shellport")
wire_log = logging.getLogger("shellport.wire")
log.addHandler(logging.NullHandler())


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is at the time of each record."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr  # emit runs under the handler's lock
        super().emit(record)


_handler: _StderrHandler | None = None


def parse(value: str) -> str | None:
    """Return None (off), "debug" or "wire" for a SHELLPORT_DEBUG value, or raise."""
    words = {w.strip().lower() for w in value.split(",")} - {""}
    unknown = sorted(w for w in words if w not in OFF and w not in ON and w != WIRE)
    if unknown:
        raise ShellportError(
            f"{ENV_DEBUG}={value!r} names {', '.join(map(repr, unknown))}, which shellport "
            f"does not know; use 1 (the shellport logger at DEBUG on stderr), wire (the "
            f"same with every protocol frame), or 0 (off)"
        )
    if WIRE in words:
        return WIRE
    if words & set(ON):
        return "debug"
    return None


def enable(level: str) -> None:
    """Send the shellport loggers to stderr at DEBUG; frames too for "wire"."""
    global _handler
    if _handler is None:
        _handler = _StderrHandler()
        _handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        log.addHandler(_handler)
    log.setLevel(logging.DEBUG)
    wire_log.setLevel(logging.DEBUG if level == WIRE else logging.INFO)


def disable() -> None:
    """Undo enable(): remove the stderr handler and reset both levels."""
    global _handler
    if _handler is not None:
        log.removeHandler(_handler)
        _handler = None
    log.setLevel(logging.NOTSET)
    wire_log.setLevel(logging.NOTSET)
